import type {
  Session,
  SessionEvent,
  SessionStore,
  SessionUpdateNotification,
  UpdateProjector,
} from '../../session/index.js'
import type { ClientRequestSender } from '../client/client-requests.js'
import type { ReplayTurnEnds } from '../views/replay-turn-ends.js'
import { OpenQuestions } from './open-questions.js'

/** Where an attached connection's updates of one session go: the replay's projection and output. */
export interface Seat {
  readonly projector: UpdateProjector
  readonly turnEnds: ReplayTurnEnds
  /** Sends one canonical update as the connection's view renders it. */
  readonly notify: (update: SessionUpdateNotification) => Promise<void>
  /** Sends the connection a request (a question of the session's turn); absent: it is asked none. */
  readonly ask?: ClientRequestSender
}

/** The updates streamed before their event is appended (a model's text as it comes). */
const STREAMED: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk'])

interface Attached extends Seat {
  /** The connection (its call scope): one seat per connection and session. */
  readonly owner: object
  /** Calls of this connection writing the session now: what they append, they show it themselves. */
  writing: number
  /** The seq of the event whose chunks it was streamed before the event was appended. */
  streamedSeq: number
  /**
   * The seq of an event whose chunks had begun streaming when it attached: it is sent none of
   * them, and the whole event (one chunk, as a replay has it) once it is appended.
   */
  joinedDuringSeq: number
  /**
   * The last chunk streamed, not sent yet: it goes out with its event, so that the turn's last
   * update can carry how the turn ended, as in a replay.
   */
  lastChunk: SessionUpdateNotification | undefined
}

/**
 * The connections of this process that have each session open. Every event appended to a session
 * (by any connection, or caught up from another process) is projected for each attached
 * connection as a replay projects it, and sent to every one whose own call did not write it: each
 * sees every update once, in log order, rendered by its own view. Not a cordis service: one per
 * ACP server, hearing its store.
 */
export class SessionAudience {
  private readonly bySession = new Map<string, Attached[]>()
  /** Per session, the seq of the event whose chunks stream now (before it is appended). */
  private readonly streaming = new Map<string, number>()
  /** The questions turns wait on, which a connection that attaches is asked too. */
  readonly questions = new OpenQuestions((sessionId, owner) =>
    this.seatsOf(sessionId).flatMap((seat) => (seat.owner !== owner && seat.ask ? [seat.ask] : [])),
  )

  constructor(sessions: SessionStore) {
    sessions.onAppended((session, event) => this.appended(session, event))
  }

  /** Attaches `owner` to `sessionId` (anew when it was already: its seat is replaced). */
  attach(sessionId: string, owner: object, seat: Seat): void {
    const others = this.seatsOf(sessionId).filter((attached) => attached.owner !== owner)
    this.bySession.set(sessionId, [
      ...others,
      {
        ...seat,
        owner,
        writing: 0,
        streamedSeq: 0,
        joinedDuringSeq: this.streaming.get(sessionId) ?? 0,
        lastChunk: undefined,
      },
    ])
  }

  /** Detaches `owner` from `sessionId`; returns how many connections stay attached. */
  detach(sessionId: string, owner: object): number {
    const left = this.seatsOf(sessionId).filter((attached) => attached.owner !== owner)
    if (left.length === 0) this.bySession.delete(sessionId)
    else this.bySession.set(sessionId, left)
    return left.length
  }

  /** Detaches `owner` from every session (its connection ended). */
  detachAll(owner: object): void {
    for (const sessionId of [...this.bySession.keys()]) this.detach(sessionId, owner)
  }

  /** How many connections have `sessionId` open. */
  count(sessionId: string): number {
    return this.seatsOf(sessionId).length
  }

  /** Whether a connection other than `owner` has `sessionId` open. */
  hasOthers(sessionId: string, owner: object): boolean {
    return this.seatsOf(sessionId).some((attached) => attached.owner !== owner)
  }

  /**
   * Runs `write`, a call of `owner` that shows what it appends to `sessionId` itself (a prompt's
   * live updates, a title it set): meanwhile its seat is fed but sends nothing.
   */
  async writing<T>(sessionId: string, owner: object, write: () => Promise<T>): Promise<T> {
    const seat = this.seatsOf(sessionId).find((attached) => attached.owner === owner)
    if (seat) seat.writing++
    try {
      return await write()
    } finally {
      if (seat) seat.writing--
    }
  }

  /**
   * A chunk `owner`'s turn streams before its event `seq` is appended: sent at once to the other
   * attached connections, which then are not sent the event's chunks again when it is appended.
   */
  streamed(sessionId: string, owner: object, update: SessionUpdateNotification, seq: number): void {
    if (!STREAMED.has(update.update.sessionUpdate)) return
    this.streaming.set(sessionId, seq)
    for (const seat of this.seatsOf(sessionId)) {
      if (seat.owner === owner || seat.writing > 0 || seat.joinedDuringSeq === seq) continue
      void seat.turnEnds.flush()
      if (seat.lastChunk) void seat.notify(seat.lastChunk)
      seat.streamedSeq = seq
      seat.lastChunk = update
    }
  }

  /** What `seat` is sent for `event`: its projection, less the chunks it was streamed already. */
  private liveUpdates(
    seat: Attached,
    event: SessionEvent,
    projected: readonly SessionUpdateNotification[],
  ): readonly SessionUpdateNotification[] {
    const last = seat.lastChunk
    seat.lastChunk = undefined
    if (seat.streamedSeq !== event.seq) {
      // Its event never came (the turn failed before it): the chunk goes out on its own.
      if (last) void seat.notify(last)
      return projected
    }
    const rest = projected.filter((update) => !STREAMED.has(update.update.sessionUpdate))
    return last ? [last, ...rest] : rest
  }

  private seatsOf(sessionId: string): readonly Attached[] {
    return this.bySession.get(sessionId) ?? []
  }

  private appended(session: Session, event: SessionEvent): void {
    if ((this.streaming.get(session.id) ?? Number.POSITIVE_INFINITY) <= event.seq)
      this.streaming.delete(session.id)
    for (const seat of this.seatsOf(session.id)) {
      const projected = seat.projector.updatesFor(event)
      if (seat.writing > 0) continue
      void seat.turnEnds.push(event, this.liveUpdates(seat, event, projected))
    }
  }
}
