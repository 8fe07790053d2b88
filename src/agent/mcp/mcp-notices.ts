import type { Logger } from 'cordis'
import type { Session } from '../../session/index.js'
import { type Notice, NoticeChannel, type UpdateSender } from '../notices/notice.js'
import type { McpConnection } from './mcp-connection.js'

/** The log event that records an MCP server a session could not use (or lost): `{server, reason}`. */
export const MCP_FAILED_EVENT = 'mcp:failed'
/**
 * The log event that records an MCP server connected for a session: `{server, tools}`. Appended
 * only when it changes what the log says about that server (see {@link recordsConnected}), so a
 * load or resume with the same servers adds nothing.
 */
export const MCP_CONNECTED_EVENT = 'mcp:connected'

/** What the user is told: the notice, and the agent message a client without notices gets instead. */
interface Said {
  readonly notice: Notice
  readonly text: string
}

/** Something to record and say about a server, waiting for a moment the log can take it. */
type Pending =
  | { readonly kind: 'failed'; readonly server: string; readonly reason: string; readonly said: Said }
  | { readonly kind: 'connected'; readonly server: string; readonly tools: string[]; readonly said?: Said }
  | { readonly kind: 'said'; readonly said: Said }

/**
 * What one session's user is told about its MCP servers, in the order it happened: failures (an
 * `mcp:failed` event, then a notice naming the server and the reason), connections (an
 * `mcp:connected` event when it changes what the log says; a notice only when the user had been
 * told the server was still starting) and "still starting" (a notice only: it changes nothing the
 * log holds). Each notice carries, for a client that shows no notices, an agent message saying the
 * same (the model lost or gains tools: that matters to the conversation). Every notice
 * is logged on stderr too. They carry the seq of the event that records them, or of the log's last
 * event when there is none.
 */
export class McpNotices {
  private readonly queue: Pending[] = []

  constructor(
    private readonly session: Session,
    /** Where notices go outside a turn (the connection that set the servers last). */
    public notify: UpdateSender,
    private readonly logger: Logger,
  ) {}

  failed(server: string, reason: string, how: 'start' | 'lost' = 'start'): void {
    const id = this.session.id
    if (how === 'lost') this.logger.warn('MCP server %s of %s was lost: %s', server, id, reason)
    else this.logger.warn('MCP server %s of %s failed to start: %s', server, id, reason)
    const said = {
      notice: {
        severity: 'error',
        title:
          how === 'lost'
            ? `MCP server "${server}" stopped working`
            : `MCP server "${server}" failed to start`,
        description: `It ${reason}. Its tools are not available.`,
      },
      text: `MCP server "${server}" ${reason}. Its tools are not available.\n`,
    } as const
    this.queue.push({ kind: 'failed', server, reason, said })
  }

  /** `server` is still starting as a model request goes out; it held that request `heldMs` before. */
  starting(server: string, heldMs?: number): void {
    this.logger.info(
      'MCP server %s of %s is still starting: a model request goes out without its tools (it waited %d ms)',
      server,
      this.session.id,
      Math.round(heldMs ?? 0),
    )
    const waited = heldMs !== undefined && heldMs > 0 ? (heldMs / 1000).toFixed(1) : undefined
    const offered = 'its tools are offered from the first request to the model after it is ready'
    const description =
      waited === undefined
        ? 'Its tools are offered from the first request to the model after it is ready.'
        : `This prompt waited ${waited} s for it: ${offered}.`
    const said = {
      notice: { severity: 'info', title: `MCP server "${server}" is still starting`, description },
      text: `MCP server "${server}" is still starting${waited === undefined ? '' : ` (this prompt waited ${waited} s for it)`}: ${offered}.\n`,
    } as const
    this.queue.push({ kind: 'said', said })
  }

  /**
   * The server asked for roots and they leave out `directories` it was started with (in its args):
   * a server such as server-filesystem serves the roots instead, so those are out of its reach.
   */
  rootsReplaced(server: string, directories: readonly string[]): void {
    const list = directories.join(', ')
    this.logger.warn(
      'MCP server %s of %s took the session roots in place of %s',
      server,
      this.session.id,
      list,
    )
    const description = `It asked for the session's directories (MCP roots), which replace the directories it was started with: ${list} may be out of its reach. To keep them, set "roots": false on this server in the configuration file (or _meta.dsh.roots: false in mcpServers).`
    const said = {
      notice: {
        severity: 'warning',
        title: `MCP server "${server}" uses the session's directories`,
        description,
      },
      text: `MCP server "${server}" uses the session's directories (MCP roots) in place of the ones it was started with (${list}). To keep those, set "roots": false on this server in the configuration file.\n`,
    } as const
    this.queue.push({ kind: 'said', said })
  }

  /** The server spent its sampling budget of the turn: its further requests of the turn are refused. */
  samplingRefused(server: string, perTurn: number): void {
    this.logger.warn(
      'MCP server %s of %s: sampling refused after %d requests this turn',
      server,
      this.session.id,
      perTurn,
    )
    const description = `It asked for the model more than ${perTurn} times in this turn: its further requests in this turn are refused.`
    const said = {
      notice: { severity: 'warning', title: `MCP server "${server}": sampling refused`, description },
      text: `MCP server "${server}" asked for the model more than ${perTurn} times in this turn: its further sampling requests in this turn are refused.\n`,
    } as const
    this.queue.push({ kind: 'said', said })
  }

  connected(connection: McpConnection, told: boolean): void {
    const { name: server, tools } = connection
    this.logger.info('MCP server %s of %s: %d tools', server, this.session.id, tools.length)
    this.queue.push({
      kind: 'connected',
      server,
      tools,
      ...(told && {
        said: {
          notice: {
            severity: 'info',
            title: `MCP server "${server}" is ready`,
            description: `${tools.length} tools are offered from now on.`,
          },
          text: `MCP server "${server}" is ready: ${tools.length} tools are offered from now on.\n`,
        },
      }),
    })
    for (const skipped of connection.skipped) {
      const reason = `tool ${skipped}`
      this.logger.warn('MCP server %s of %s: %s was not offered', server, this.session.id, reason)
      const said = {
        notice: {
          severity: 'warning',
          title: `MCP server "${server}": a tool is not offered`,
          description: `${reason}. That tool is not offered; the server's other tools are.`,
        },
        text: `MCP server "${server}": ${reason}. That tool is not offered; the server's other tools are.\n`,
      } as const
      this.queue.push({ kind: 'failed', server, reason: `${reason} was not offered`, said })
    }
    const cut = connection.listingCut
    if (cut !== undefined) {
      const reason = `only its first ${tools.length + connection.skipped.length} tools were listed: ${cut}`
      this.logger.warn('MCP server %s of %s: %s', server, this.session.id, reason)
      const said = {
        notice: {
          severity: 'warning',
          title: `MCP server "${server}": not all tools are offered`,
          description: `${reason}. The rest are not offered.`,
        },
        text: `MCP server "${server}": ${reason}. The rest are not offered.\n`,
      } as const
      this.queue.push({ kind: 'failed', server, reason, said })
    }
  }

  /**
   * Records and sends what waits, through `send` when given (a running turn's channel), else
   * through {@link notify}.
   */
  flush(send?: UpdateSender): void {
    const channel = new NoticeChannel(send ?? this.notify)
    while (this.queue.length > 0) {
      const pending = this.queue[0] as Pending
      let seq: number
      try {
        seq = this.record(pending)
      } catch {
        return
      }
      this.queue.shift()
      if (pending.said !== undefined) channel.say(pending.said.notice, seq, 'message', pending.said.text)
    }
  }

  /** Appends the pending notice's event, if it has one; the seq its notice carries. */
  private record(notice: Pending): number {
    const session = this.session
    if (notice.kind === 'failed') {
      const data = { server: notice.server, reason: notice.reason }
      return session.append({ type: MCP_FAILED_EVENT, data }).seq
    }
    if (notice.kind === 'connected' && !recordsConnected(session, notice.server, notice.tools)) {
      const data = { server: notice.server, tools: notice.tools }
      return session.append({ type: MCP_CONNECTED_EVENT, data }).seq
    }
    return session.lastSeq
  }
}

/**
 * True when the last `mcp:connected` or `mcp:failed` event the session's log holds for `server`
 * (its own or, for a fork, inherited) says it is connected with exactly `tools`: connecting it
 * again changes nothing worth recording. A connection's absence (a load without that server) is
 * not an event, so it does not count as a change.
 */
export function recordsConnected(session: Session, server: string, tools: readonly string[]): boolean {
  for (let seq = session.lastSeq; seq > 0; seq--) {
    const event = session.at(seq)
    if (event?.type !== MCP_CONNECTED_EVENT && event?.type !== MCP_FAILED_EVENT) continue
    const data = event.data as { server?: unknown; tools?: unknown }
    if (data.server !== server) continue
    if (event.type === MCP_FAILED_EVENT || !Array.isArray(data.tools)) return false
    return data.tools.length === tools.length && data.tools.every((tool, i) => tool === tools[i])
  }
  return false
}
