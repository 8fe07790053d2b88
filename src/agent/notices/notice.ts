import type { NoticeSessionUpdate, SessionUpdate } from '../../session/index.js'

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
 * Where one session's notices go: each as its canonical `notice` update, carrying what a client
 * that shows no notices gets instead (the client's view in the protocol layer chooses). Notices
 * are live events, never history: nothing here touches the log, and no replay shows them. `seq` is
 * the log's last event when the notice is sent (a notice stands for no event of its own), or the
 * event it is about.
 */
export class NoticeChannel {
  constructor(private readonly send: UpdateSender) {}

  /**
   * Says `notice`. For a client without notices, `fallback: 'message'` stands for `message`
   * (default: the notice as text, see {@link noticeText}) as an agent message; `'log'` for nothing.
   */
  say(notice: Notice, seq: number, fallback: NoticeFallback, message?: string): void {
    this.send(noticeUpdate(notice, fallback === 'message' ? (message ?? noticeText(notice)) : undefined), seq)
  }
}

/**
 * The canonical `notice` update for `notice` (an empty title becomes "Notice": the schema wants
 * one); `fallback`: the agent message a client without notices gets instead (absent: nothing).
 */
export function noticeUpdate(notice: Notice, fallback?: string): NoticeSessionUpdate {
  return {
    sessionUpdate: 'notice',
    severity: notice.severity,
    title: notice.title === '' ? 'Notice' : notice.title,
    ...(notice.description !== undefined && notice.description !== '' && { description: notice.description }),
    ...(fallback !== undefined && { fallback }),
  }
}

/** A notice as an agent message's text: the title, then the description, ending with a newline. */
export function noticeText(notice: Notice): string {
  return notice.description ? `${notice.title}: ${notice.description}\n` : `${notice.title}\n`
}
