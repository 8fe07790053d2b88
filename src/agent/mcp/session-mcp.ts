import type { Logger } from 'cordis'
import type { Session, SessionUpdate } from '../../session/index.js'
import type { ToolRegistry } from '../tools/registry.js'
import { errorMessage } from '../turn/model-step.js'
import type { McpConnection } from './mcp-connection.js'
import type { McpServerConfig } from './server-config.js'

/** The log event that records an MCP server a session could not use (or lost): `{server, reason}`. */
export const MCP_FAILED_EVENT = 'mcp:failed'
/**
 * The log event that records an MCP server connected for a session: `{server, tools}`. Appended
 * only when it changes what the log says about that server (see {@link recordsConnected}), so a
 * load or resume with the same servers adds nothing.
 */
export const MCP_CONNECTED_EVENT = 'mcp:connected'

/** Sends one `session/update` for a session, tagged with the seq of the event it stands for. */
export type SessionNotifier = (update: SessionUpdate, seq: number) => void

interface Failure {
  readonly server: string
  readonly reason: string
  /** Only one tool is missing: the server's other tools are offered. */
  readonly oneTool?: true
}

interface SessionServers {
  connections: McpConnection[]
  /** Failures not yet recorded and reported (waiting for a moment the log can take them). */
  pending: Failure[]
  notify: SessionNotifier
  session: Session
}

export interface McpSessionsOptions {
  readonly registry: ToolRegistry
  readonly logger: Logger
  /** Limit (ms) for connecting, listing and each call. */
  readonly timeoutMs: number
  /** True while a turn runs on the session (then failures wait for {@link McpSessions.flush}). */
  readonly isBusy: (sessionId: string) => boolean
}

/**
 * The MCP servers of each live session. They belong to the session's lifetime: `connect` (on
 * new/load/resume/fork) replaces whatever the session had, `close` (its close, delete, or the
 * process stopping) stops them. A server that fails to start, times out or dies never blocks the
 * session: its tools are withdrawn and the failure is recorded as an `mcp:failed` event and shown
 * to the user as an agent message naming the server and the reason.
 */
export class McpSessions {
  private readonly sessions = new Map<string, SessionServers>()
  private readonly closing = new Map<string, Promise<void>>()
  private readonly pids = new Set<number>()
  private readonly killOnExit = () => {
    for (const pid of this.pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
  }

  constructor(private readonly options: McpSessionsOptions) {
    process.on('exit', this.killOnExit)
  }

  /**
   * Connects `servers` for `session` (in parallel, each bounded by the timeout), after closing any
   * it had. Resolves when every server is connected or has failed; failures are reported right
   * after the caller's response (the client knows the session by then).
   */
  async connect(
    session: Session,
    servers: readonly McpServerConfig[],
    notify: SessionNotifier,
  ): Promise<void> {
    await this.close(session.id)
    if (servers.length === 0) return
    const entry: SessionServers = { connections: [], pending: [], notify, session }
    this.sessions.set(session.id, entry)
    const logger = this.options.logger
    await Promise.all(
      servers.map(async (config) => {
        try {
          // The MCP SDK is loaded by the first session that has servers: the server starts without it.
          const { McpConnection } = await import('./mcp-connection.js')
          const connection = await McpConnection.open(config, {
            sessionId: session.id,
            cwd: session.cwd,
            directories: () => [session.cwd, ...session.additionalDirectories],
            registry: this.options.registry,
            timeoutMs: this.options.timeoutMs,
            onLost: (reason) => this.lost(session.id, connection, reason),
            trackPid: (pid, alive) => (alive ? this.pids.add(pid) : this.pids.delete(pid)),
          })
          if (this.sessions.get(session.id) !== entry) {
            await connection.close()
            return
          }
          entry.connections.push(connection)
          logger.info('MCP server %s of %s: %d tools', config.name, session.id, connection.tools.length)
          if (!this.options.isBusy(session.id) && !recordsConnected(session, config.name, connection.tools)) {
            session.append({
              type: MCP_CONNECTED_EVENT,
              data: { server: config.name, tools: connection.tools },
            })
          }
          for (const skipped of connection.skipped) {
            entry.pending.push({ server: config.name, reason: `tool ${skipped}`, oneTool: true })
          }
        } catch (error) {
          const reason = errorMessage(error)
          logger.warn('MCP server %s of %s failed to start: %s', config.name, session.id, reason)
          entry.pending.push({ server: config.name, reason: `could not start: ${reason}` })
        }
      }),
    )
    if (entry.pending.length > 0) setImmediate(() => this.flushIdle(session.id))
  }

  /** Stops the session's servers and withdraws their tools. Idempotent; concurrent calls share one close. */
  close(sessionId: string): Promise<void> {
    const running = this.closing.get(sessionId)
    if (running) return running
    const entry = this.sessions.get(sessionId)
    if (!entry) return Promise.resolve()
    this.sessions.delete(sessionId)
    const done = Promise.all(entry.connections.map((c) => c.close())).then(() => {
      this.closing.delete(sessionId)
    })
    this.closing.set(sessionId, done)
    return done
  }

  /** Stops every session's servers. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)))
    await Promise.all([...this.closing.values()])
    process.off('exit', this.killOnExit)
  }

  /** Names of the session's connected servers. */
  servers(sessionId: string): string[] {
    return this.sessions.get(sessionId)?.connections.map((c) => c.name) ?? []
  }

  /**
   * Records and reports the session's pending failures through `send` (a running turn's own
   * channel), at a point where the log may take standalone events.
   */
  flush(session: Session, send?: SessionNotifier): void {
    const entry = this.sessions.get(session.id)
    if (!entry || entry.pending.length === 0 || session !== entry.session) return
    const failures = entry.pending.splice(0)
    for (const failure of failures) {
      let seq: number
      try {
        seq = session.append({
          type: MCP_FAILED_EVENT,
          data: { server: failure.server, reason: failure.reason },
        }).seq
      } catch {
        return
      }
      const text = failure.oneTool
        ? `MCP server "${failure.server}": ${failure.reason}. That tool is not offered; the server's other tools are.\n`
        : `MCP server "${failure.server}" ${failure.reason}. Its tools are not available.\n`
      ;(send ?? entry.notify)({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }, seq)
    }
  }

  private flushIdle(sessionId: string): void {
    const entry = this.sessions.get(sessionId)
    if (entry && !this.options.isBusy(sessionId)) this.flush(entry.session)
  }

  private lost(sessionId: string, connection: McpConnection, reason: string): void {
    const entry = this.sessions.get(sessionId)
    if (!entry) return
    entry.connections = entry.connections.filter((c) => c !== connection)
    this.options.logger.warn('MCP server %s of %s was lost: %s', connection.name, sessionId, reason)
    entry.pending.push({ server: connection.name, reason: `stopped working (${reason})` })
    this.flushIdle(sessionId)
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
