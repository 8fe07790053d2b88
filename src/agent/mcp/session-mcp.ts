import { errorMessage } from '../../lib/error-message.js'
import type { Session } from '../../session/index.js'
import type { ElicitationModes, McpSampler } from './asks/mcp-asks.js'
import { DEFAULT_SAMPLING_PER_TURN, SamplingBounds } from './asks/sampling-bounds.js'
import type { McpConnection } from './mcp-connection.js'
import { McpNotices } from './mcp-notices.js'
import type { McpServerConfig } from './server-config.js'
import {
  configKey,
  type McpSessionsOptions,
  newServerSlot,
  type ServerSlot,
  type SessionNotifier,
  type SessionServers,
  type WantedServer,
} from './server-slot.js'
import { type StartClock, StartRecord, systemClock, waitForStarts } from './start-wait.js'

export { MCP_CONNECTED_EVENT, MCP_FAILED_EVENT } from './mcp-notices.js'

export type { McpSessionsOptions, SessionNotifier } from './server-slot.js'

/**
 * The MCP servers of each live session. They belong to the session's lifetime: `connect` (on
 * new/load/resume/fork) sets what the session has, `close` (its close, delete, or the process
 * stopping) stops them. Connecting never holds the caller: servers start in the background and
 * their tools are offered from the first model request after they are ready; a model request that
 * goes out while one is still starting tells the user so (once per start). A server that fails to
 * start, times out or dies never blocks the session: its tools are withdrawn and the failure is
 * recorded as an `mcp:failed` event and shown to the user as a notice (an agent message for a
 * client without `session.notices`) naming the server and the reason. Loading a live session again with a server of the same config at the same place
 * keeps that server's connection (an HTTP server sees no second session).
 */
export class McpSessions {
  private readonly sessions = new Map<string, SessionServers>()
  private readonly closing = new Map<string, Promise<void>>()
  private readonly stopping = new Set<Promise<void>>()
  /** Process groups of running stdio servers: a last SIGKILL reaches them when the process exits. */
  private readonly groups = new Set<number>()
  /** What each server's last start took: how long the next one is worth waiting for. */
  private readonly record = new StartRecord()
  private readonly clock: StartClock
  private readonly killOnExit = () => {
    for (const pgid of this.groups) {
      try {
        process.kill(-pgid, 'SIGKILL')
      } catch {
        // gone
      }
    }
  }

  constructor(private readonly options: McpSessionsOptions) {
    this.clock = options.clock ?? systemClock
    process.on('exit', this.killOnExit)
  }

  /**
   * Sets `servers` as the session's servers and resolves at once: servers it already had with the
   * same config at the same place stay; the others are stopped, and the new ones start (in the
   * background, after those stopped). Failures are reported once the client can know the session.
   */
  async connect(
    session: Session,
    servers: readonly McpServerConfig[],
    notify: SessionNotifier,
    elicitation?: ElicitationModes,
  ): Promise<void> {
    let entry = this.sessions.get(session.id)
    if (entry && entry.session !== session) {
      void this.close(session.id)
      entry = undefined
    }
    const previous = entry?.slots ?? []
    const kept = servers.map((config, rank) =>
      previous.find(
        (slot) => slot.rank === rank && slot.key === configKey(config, elicitation) && slot.state !== 'gone',
      ),
    )
    // New servers start once the ones they replace (or a close still running) have stopped.
    const retired = Promise.all([
      this.retire(previous.filter((slot) => !kept.includes(slot))),
      this.closing.get(session.id),
    ]).then(() => {})
    if (servers.length === 0) {
      if (entry) this.sessions.delete(session.id)
      return
    }
    if (entry) entry.notices.notify = notify
    else {
      entry = { slots: [], notices: new McpNotices(session, notify, this.options.logger), session }
      this.sessions.set(session.id, entry)
    }
    const live = entry
    live.slots = servers.map(
      (config, rank) => kept[rank] ?? this.start(live, { config, rank, elicitation }, retired),
    )
  }

  /** Stops the session's servers and withdraws their tools. Idempotent; concurrent calls share one close. */
  close(sessionId: string): Promise<void> {
    const running = this.closing.get(sessionId)
    if (running) return running
    const entry = this.sessions.get(sessionId)
    if (!entry) return Promise.resolve()
    this.sessions.delete(sessionId)
    const done = this.retire(entry.slots).then(() => {
      this.closing.delete(sessionId)
    })
    this.closing.set(sessionId, done)
    return done
  }

  /** Stops every session's servers. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)))
    await Promise.all([...this.closing.values(), ...this.stopping])
    process.off('exit', this.killOnExit)
  }

  /**
   * Before a model request of a turn on `session`: waits for servers about to be ready (see
   * {@link starting}), then reports what waits through the turn's `send` (see {@link flush}).
   * Undefined, at once, when there is nothing to wait for.
   */
  beforeStep(session: Session, send: SessionNotifier, signal: AbortSignal): Promise<void> | undefined {
    const waiting = this.starting(session.id, signal)
    if (waiting) return waiting.then(() => this.flush(session, send))
    this.flush(session, send)
    return undefined
  }

  /**
   * Waits for the session's servers still starting that the user was not told about yet, while
   * each can still plausibly come up (`start-wait.ts`: against what its last start took, at most
   * MCP_START_GRACE_MS) or until `signal` aborts: a server that is up in a moment (most
   * are) is offered to the very model request that a client sends right after `session/new`, and
   * one that takes longer costs that wait once, then is said to be still starting, with how long it
   * held the request. Undefined when there is nothing to wait for.
   */
  starting(sessionId: string, signal: AbortSignal): Promise<void> | undefined {
    const slots = this.sessions.get(sessionId)?.slots ?? []
    const now = this.clock.now()
    // A server that cannot plausibly come up in time (it never did before) is not waited for.
    const waiting = slots.filter(
      (slot) => slot.state === 'starting' && !slot.told && this.record.deadline(slot, slots) > now,
    )
    if (waiting.length === 0 || signal.aborted) return undefined
    return this.waitFor(sessionId, waiting, slots, signal)
  }

  private async waitFor(
    sessionId: string,
    waiting: readonly ServerSlot[],
    all: readonly ServerSlot[],
    signal: AbortSignal,
  ): Promise<void> {
    const began = this.clock.now()
    const upTo = Math.max(...waiting.map((slot) => this.record.deadline(slot, all))) - began
    this.options.logger.info(
      'the model request of %s waits up to %d ms for MCP servers still starting: %s',
      sessionId,
      Math.max(0, Math.round(upTo)),
      waiting.map((slot) => slot.config.name).join(', '),
    )
    const context = { record: this.record, clock: this.clock, signal }
    await waitForStarts(waiting, all, context)
    const held = this.clock.now() - began
    for (const slot of waiting) if (slot.state === 'starting') slot.held = held
  }

  /** Names of the session's connected servers. */
  servers(sessionId: string): string[] {
    return (this.sessions.get(sessionId)?.slots ?? [])
      .filter((slot) => slot.state === 'ready')
      .map((slot) => slot.config.name)
  }

  /**
   * Records and reports what waits to be said about the session's servers through `send` (a
   * running turn's own channel), at a point where the log may take standalone events. Inside a
   * turn (before a model request) it also says which servers are still starting.
   */
  flush(session: Session, send?: SessionNotifier): void {
    const entry = this.sessions.get(session.id)
    if (!entry || session !== entry.session) return
    if (send && session.openTurn !== undefined) {
      for (const slot of entry.slots) {
        if (slot.state !== 'starting' || slot.told) continue
        slot.told = true
        entry.notices.starting(slot.config.name, slot.held)
      }
    }
    entry.notices.flush(send)
  }

  /** A new slot for a wanted server, opened once `after` settled. */
  private start(entry: SessionServers, wanted: WantedServer, after: Promise<void>): ServerSlot {
    const slot = newServerSlot(wanted, this.clock.now())
    // Opened after the caller's answer has left (a notice must not precede it: the client would
    // not know the session yet).
    slot.opened = after
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.open(entry, slot))
    return slot
  }

  private async open(entry: SessionServers, slot: ServerSlot): Promise<void> {
    const { session, notices } = entry
    const { config } = slot
    const signal = slot.abort.signal
    let connection: McpConnection
    try {
      signal.throwIfAborted()
      // The MCP SDK is loaded by the first session that has servers: the server starts without it.
      const { McpConnection } = await import('./mcp-connection.js')
      connection = await McpConnection.open(config, {
        sessionId: session.id,
        cwd: session.cwd,
        directories: () => [session.cwd, ...session.additionalDirectories],
        registry: this.options.registry,
        timeoutMs: this.options.timeoutMs,
        rank: slot.rank,
        signal,
        onLost: (reason) => this.lost(entry, slot, reason),
        ...(slot.elicitation && { elicitation: slot.elicitation }),
        ...(this.options.sampler && { sampling: this.sampling(this.options.sampler, entry, config.name) }),
        onRootsReplaced: (directories) => {
          notices.rootsReplaced(config.name, directories)
          this.flushIdle(entry)
        },
        trackGroup: (pgid, alive) => (alive ? this.groups.add(pgid) : this.groups.delete(pgid)),
      })
    } catch (error) {
      if (signal.aborted) return
      slot.state = 'gone'
      slot.settledAt = this.clock.now()
      notices.failed(config.name, `could not start: ${errorMessage(error)}`)
      this.flushIdle(entry)
      return
    }
    if (signal.aborted) {
      await connection.close()
      return
    }
    slot.connection = connection
    slot.state = 'ready'
    slot.settledAt = this.clock.now()
    this.record.connected(slot.key, slot.settledAt - slot.startedAt)
    notices.connected(connection, slot.told)
    this.flushIdle(entry)
  }

  /** How `server` of the session samples: by `sampler`, bounded, the user told when its budget is spent. */
  private sampling(sampler: McpSampler, entry: SessionServers, server: string) {
    const perTurn = this.options.samplingPerTurn ?? DEFAULT_SAMPLING_PER_TURN
    return {
      sampler,
      bounds: new SamplingBounds(perTurn, () => entry.notices.samplingRefused(server, perTurn)),
    }
  }

  /** Stops `slots` (an opening is aborted, a connection closed); resolves once all are stopped. */
  private retire(slots: readonly ServerSlot[]): Promise<void> {
    if (slots.length === 0) return Promise.resolve()
    const done = Promise.all(
      slots.map((slot) => {
        slot.state = 'gone'
        slot.abort.abort()
        return slot.opened.then(() => slot.connection?.close())
      }),
    ).then(() => {})
    this.stopping.add(done)
    void done.finally(() => this.stopping.delete(done))
    return done
  }

  private flushIdle(entry: SessionServers): void {
    if (this.sessions.get(entry.session.id) === entry && !this.options.isBusy(entry.session.id)) {
      this.flush(entry.session)
    }
  }

  private lost(entry: SessionServers, slot: ServerSlot, reason: string): void {
    if (slot.state !== 'ready') return
    slot.state = 'gone'
    slot.connection = undefined
    entry.notices.failed(slot.config.name, `stopped working (${reason})`, 'lost')
    this.flushIdle(entry)
  }
}
