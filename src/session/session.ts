import type { SessionConfig } from './config.js'
import { SessionError, SessionErrorCode } from './errors.js'
import type { SessionHeader, SessionSummary } from './header.js'
import type { SessionId } from './ids.js'
import type { AnyEventInput, SessionEvent } from './log/events.js'
import { deepFreeze, storableEventData } from './log/frozen.js'
import type { LogState, TurnSpan } from './log/log-state.js'
import { messageIdOf } from './log/message-ids/message-id-format.js'
import { assertEventShape } from './log/validate-event.js'
import { LogNotes } from './log-notes.js'
import { titleFromContent } from './title.js'
import { ownCost } from './usage.js'

/** What a Session needs from the store that owns it. */
export interface SessionHost {
  now(): string
  /**
   * Called before each append, before the event is made: the store takes the session's pen here
   * (and catches up on what other processes appended) when it does not hold it. Throws to refuse
   * the append (another process is writing): the log is left unchanged.
   */
  willAppend(session: Session): void
  appended(session: Session, event: SessionEvent): void
}

/**
 * A live session: its header and its append-only log. Events handed out are deeply frozen and
 * shared, never copied: nobody can change what is in the log.
 */
export class Session {
  readonly header: SessionHeader
  private readonly log: SessionEvent[]
  private readonly state: LogState
  private host: SessionHost | undefined
  private failure: SessionError | undefined
  /** Set while the store holds the session (a rewind): appends throw it. */
  private held: SessionError | undefined
  /** What the session keeps of its log as events join it (titles, costs, configuration...). */
  private readonly notes: LogNotes

  /** @internal Sessions are made by the store: `ctx.sessions.create`, `load` or `fork`. */
  constructor(header: SessionHeader, log: SessionEvent[], state: LogState, host: SessionHost) {
    this.header = Object.freeze({ ...header })
    this.log = log
    this.state = state
    this.host = host
    this.notes = new LogNotes(log, header.seedLength ?? 0)
  }

  /** The rewind generation at `seq`: that of the last `rewind:marker` before it, 0 when none is. */
  generationAt(seq: number): number {
    return this.notes.generationAt(seq)
  }

  /** The ACP `messageId` of the message recorded at `seq` (see `messageIdOf`). */
  messageIdAt(seq: number): string {
    return messageIdOf(seq, this.generationAt(seq))
  }

  /** The seqs of the events that may hold a cost, oldest first (see `UsageView.pricedSeqs`). */
  get pricedSeqs(): readonly number[] {
    return this.notes.priced
  }

  /** Whether the session's own last `session/archived` event archived it. */
  get archived(): boolean {
    return this.notes.archived
  }

  /** The additional workspace directories the log records last (absolute; `cwd` is not among them). */
  get additionalDirectories(): readonly string[] {
    return this.notes.directories
  }

  /** The configuration the log records (see `sessionConfig`); the agent adds defaults. */
  get config(): SessionConfig {
    return this.notes.config
  }

  get id(): SessionId {
    return this.header.id
  }

  get cwd(): string {
    return this.header.cwd
  }

  /** False once the session was closed, deleted or replaced: a stale object. */
  get live(): boolean {
    return this.host !== undefined
  }

  /** The error that made this session read-only, if a write failed. */
  get writeFailure(): SessionError | undefined {
    return this.failure
  }

  /** The length of the inherited prefix: a fork child's seed, 0 for a session of its own. */
  get seedLength(): number {
    return this.header.seedLength ?? 0
  }

  get lastSeq(): number {
    return this.state.lastSeq
  }

  get length(): number {
    return this.log.length
  }

  /** The turn number that is open, if any. */
  get openTurn(): number | undefined {
    return this.state.openTurn
  }

  get openStep(): number | undefined {
    return this.state.openStep
  }

  get lastTurn(): number {
    return this.state.lastTurn
  }

  /** Tool call ids of the open turn that have no result yet. */
  get unansweredCalls(): string[] {
    return this.state.unansweredCalls
  }

  /**
   * The current title: the last `session/title` event, else the header's, else one derived from
   * the first prompt's text (see {@link titleFromContent}).
   */
  get title(): string | undefined {
    return this.titleOrigin?.title
  }

  /** The seq of the last own `session/title` event (not one of an inherited fork seed), if any. */
  get ownTitleSeq(): number | undefined {
    return this.notes.titleEvent?.seq
  }

  /** A title someone set: the last `session/title` event, else the header's. Forks inherit it. */
  get explicitTitle(): string | undefined {
    return this.notes.titleEvent?.data.title ?? this.header.title
  }

  /**
   * The current title (see {@link title}) and the seq of the event it comes from: the
   * `session/title` event that set it, or the `user/message` it was derived from. A title from the
   * header (given at creation: a fork child's, a subagent's) comes from no event: no seq.
   */
  get titleOrigin(): { readonly title: string; readonly seq?: number } | undefined {
    return this.notes.titleOrigin(this.header.title)
  }

  /**
   * The time of the last activity: the last event's, but never before the session's creation (a
   * fork child's inherited events are older than the child).
   */
  get updatedAt(): string {
    const created = this.header.createdAt
    const last = this.log.length > 0 ? (this.log[this.log.length - 1] as SessionEvent).time : created
    // biome-ignore lint/complexity/useMathMinMax: ISO-8601 times, compared as strings (Math.max would give NaN)
    return last > created ? last : created
  }

  /** The whole log, oldest first. The array is a copy; the events are shared and frozen. */
  events(): SessionEvent[] {
    return this.log.slice()
  }

  /** Events with `seq > seq`, oldest first. */
  eventsAfter(seq: number): SessionEvent[] {
    return this.log.slice(Math.max(0, seq))
  }

  /** Events with `seq <= boundary`. */
  eventsThrough(boundary: number): SessionEvent[] {
    return this.log.slice(0, Math.max(0, boundary))
  }

  /** The event with this seq, if it exists. */
  at(seq: number): SessionEvent | undefined {
    return this.log[seq - 1]
  }

  /** @internal Turn extents, for fork boundaries. */
  turnSpans(): readonly TurnSpan[] {
    return this.state.turns
  }

  summary(): SessionSummary {
    const { id, cwd, createdAt, parentSession, seedLength, subagent } = this.header
    const title = this.title
    const cost = ownCost(this)
    return {
      sessionId: id,
      cwd,
      createdAt,
      updatedAt: this.updatedAt,
      ...(title !== undefined && { title }),
      ...(parentSession !== undefined && { parentSession }),
      ...(seedLength !== undefined && { seedLength }),
      ...(subagent !== undefined && { subagent }),
      ...(this.notes.archived && { archived: true as const }),
      ...(cost !== undefined && { cost }),
      live: true,
    }
  }

  /**
   * Appends one event. The store assigns `seq` and `time`; `data` is deep-copied and frozen. An
   * event that breaks the log's invariants throws a `SessionError` and leaves the log unchanged.
   */
  append(input: AnyEventInput): SessionEvent {
    const host = this.requireWritable()
    if (typeof input !== 'object' || input === null) {
      throw new SessionError(SessionErrorCode.INVALID_EVENT, 'an event must be an object { type, data }')
    }
    const type = input.type
    const data = storableEventData(type, input.data)
    // Check the frozen copy, not the input: what is checked is exactly what is stored.
    assertEventShape(type, data)
    host.willAppend(this)
    const event = Object.freeze({
      seq: this.state.lastSeq + 1,
      type,
      time: host.now(),
      data,
    }) as SessionEvent
    this.state.check(event)
    this.record(event)
    host.appended(this, event)
    return event
  }

  /**
   * @internal Takes events another process appended to this session's stored log (the store
   * catching up): each is checked against the log's invariants and frozen, then recorded like an
   * append, but the append listeners do not hear it (it is stored already). `events` must follow
   * the log's last seq; the first that does not fit throws `CORRUPT_SESSION` (those before it stay).
   */
  adopt(events: readonly SessionEvent[]): void {
    for (const event of events) {
      try {
        if (event.seq !== this.state.lastSeq + 1) throw new Error(`expected seq ${this.state.lastSeq + 1}`)
        assertEventShape(event.type, event.data)
        this.state.check(event)
      } catch (error) {
        throw new SessionError(
          SessionErrorCode.CORRUPT_SESSION,
          `session ${this.id}: an event another process appended does not fit the log: ${(error as Error).message}`,
          { sessionId: this.id, seq: event.seq },
        )
      }
      this.record(deepFreeze(event))
    }
  }

  private record(event: SessionEvent): void {
    this.log.push(event)
    this.state.apply(event)
    this.notes.note(event)
  }

  private requireWritable(): SessionHost {
    if (!this.host) {
      throw new SessionError(SessionErrorCode.SESSION_NOT_LIVE, `session ${this.id} is no longer live`, {
        sessionId: this.id,
      })
    }
    if (this.held) throw this.held
    if (this.failure) {
      throw new SessionError(
        SessionErrorCode.SESSION_READ_ONLY,
        `session ${this.id} is read-only after a failed write: ${this.failure.message}`,
        { sessionId: this.id, cause: this.failure.code },
        { cause: this.failure },
      )
    }
    return this.host
  }

  /** @internal The store marks a session read-only when its backend could not write. */
  markFailed(error: SessionError): void {
    this.failure ??= error
  }

  /** @internal The store holds a session (appends throw `reason`) while it rewinds it; undefined lets go. */
  hold(reason: SessionError | undefined): void {
    this.held = reason
  }

  /** @internal The store detaches a session it closed, deleted or replaced. */
  detach(): void {
    this.host = undefined
  }
}
