import type { SessionUpdate } from '../../session/index.js'

/**
 * Something the user should know that is no part of the conversation (ACP `notice`): a retry of
 * the model server, an MCP server that failed, a configuration that was ignored, a compaction.
 * `title` stands alone (plain text, not empty); `description` adds detail or guidance.
 */
export interface Notice {
  readonly severity: 'info' | 'warning' | 'error'
  readonly title: string
  readonly description?: string
}

/**
 * What a client without `session.notices` gets instead: `message`, an agent message (for what
 * matters to the conversation: the model lost tools); `log`, nothing (a transient event, which
 * its source logs on stderr).
 */
export type NoticeFallback = 'message' | 'log'

/** Sends one `session/update` of a session, tagged with the seq of the event it stands for. */
export type UpdateSender = (update: SessionUpdate, seq: number) => void

/**
 * Where one session's notices go, for one client: as `notice` updates when the client advertised
 * `clientCapabilities.session.notices` (ACP: only then may an agent send them), else as its
 * fallback says. Notices are live events, never history: nothing here touches the log, and no
 * replay shows them. `seq` is the log's last event when the notice is sent (a notice stands for
 * no event of its own), or the event it is about.
 */
export class NoticeChannel {
  constructor(
    /** The client shows `notice` updates. */
    readonly capable: boolean,
    private readonly send: UpdateSender,
  ) {}

  /**
   * Says `notice`. Without the capability, `fallback: 'message'` sends `message` (default: the
   * notice as text, see {@link noticeText}) as an agent message; `'log'` sends nothing.
   */
  say(notice: Notice, seq: number, fallback: NoticeFallback, message?: string): void {
    if (this.capable) this.send(noticeUpdate(notice), seq)
    else if (fallback === 'message') {
      const text = message ?? noticeText(notice)
      this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }, seq)
    }
  }
}

/** The ACP `notice` update for `notice` (an empty title becomes "Notice": the schema wants one). */
export function noticeUpdate(notice: Notice): SessionUpdate {
  return {
    sessionUpdate: 'notice',
    severity: notice.severity,
    title: notice.title === '' ? 'Notice' : notice.title,
    ...(notice.description !== undefined && notice.description !== '' && { description: notice.description }),
  }
}

/** A notice as an agent message's text: the title, then the description, ending with a newline. */
export function noticeText(notice: Notice): string {
  return notice.description ? `${notice.title}: ${notice.description}\n` : `${notice.title}\n`
}
