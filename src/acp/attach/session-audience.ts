import type { Session, SessionEvent, SessionStore, SessionUpdateNotification } from '../../session/index.js'
import type { ClientRequestSender } from '../client/client-bridge.js'
import { type Attached, answerersAmong, namesOf } from './attached.js'
import type { BoardAudience, RunningTurns } from './board-audience.js'
import { noteTurnEnd, showCaughtUp, tellTurnState } from './caught-up-seats.js'
import { CrossProcess } from './cross/cross-process.js'
import { CrossStreams } from './cross/cross-streams.js'
import { liveUpdates, StreamingEvents, streamChunk, streamsAhead } from './live-chunks.js'
import { type Presence, presenceChanged, presenceOf, presenceUpdate } from './presence.js'
import { type AskedRequest, SessionQuestions } from './questions/audience-questions.js'
import { goneNotice, keptPrefix } from './resync.js'
import type { Seat } from './seat.js'
import { WritingCalls } from './writing-calls.js'

/**
 * The connections of this process that have each session open. Every event appended to a session
 * (by any connection, or caught up from another process) is projected for each attached
 * connection as a replay projects it, and sent to every one whose own call did not write it: each
 * sees every update once, in log order, rendered by its own view. Not a cordis service: one per
 * ACP server, hearing its store.
 */
export class SessionAudience {
  private readonly bySession = new Map<string, Attached[]>()
  /** Sessions being read again after another process replaced their log. */
  private readonly resyncing = new Set<string>()
  /** The presence each session's connections were last told. */
  private readonly presence = new Map<string, Presence>()
  /** Per session, the event whose chunks stream now (before it is appended). */
  private readonly streaming = new StreamingEvents()
  /** The writing calls (see {@link writing}). */
  private readonly writers = new WritingCalls()
  /** The session's life in the other processes that have it open (presence, questions, cancels). */
  private readonly cross: CrossProcess
  /** The questions put to the attached connections, not settled yet. */
  private readonly questions: SessionQuestions
  /** Turns' text as it streams, to and from the other processes. */
  private readonly crossStreams: CrossStreams

  constructor(
    private readonly sessions: SessionStore,
    turns?: RunningTurns,
  ) {
    this.cross = new CrossProcess(sessions, this.boardAudience(turns))
    this.crossStreams = new CrossStreams(sessions)
    this.questions = new SessionQuestions(
      { seatsOf: (id) => this.seatsOf(id), changed: (id) => this.tellPresence(id) },
      this.cross,
    )
    sessions.onAppended((session, event) => this.appended(session, event))
    sessions.onForeignWrites({
      caughtUp: (session, events) => this.caughtUp(session, events),
      changed: (session) => void this.resync(session),
    })
  }

  /** Attaches `owner` to `sessionId` (anew when it was already: its seat is replaced). */
  attach(sessionId: string, owner: object, seat: Seat): void {
    const others = this.seatsOf(sessionId).filter((attached) => attached.owner !== owner)
    const attached: Attached = {
      ...seat,
      owner,
      streamedSeq: 0,
      streamedText: new Map(),
      joinedDuringSeq: this.streaming.seqOf(sessionId) ?? this.crossStreams.streamingSeq(sessionId) ?? 0,
      lastChunk: undefined,
      endUnmarked: false,
    }
    this.bySession.set(sessionId, [...others, attached])
    this.cross.follow(sessionId)
    this.crossStreams.follow(sessionId, () => this.seatsOf(sessionId))
    // A question still open is put to it too.
    this.questions.putTo(sessionId, attached)
    this.tellPresence(sessionId, attached)
  }

  /** Detaches `owner` from `sessionId`; returns how many connections stay attached. */
  detach(sessionId: string, owner: object): number {
    const seats = this.seatsOf(sessionId)
    const left = seats.filter((attached) => attached.owner !== owner)
    if (left.length === 0) this.bySession.delete(sessionId)
    else this.bySession.set(sessionId, left)
    if (left.length < seats.length) {
      this.questions.withdraw(sessionId, owner)
      this.tellPresence(sessionId)
    }
    if (left.length === 0) {
      this.presence.delete(sessionId)
      this.cross.unfollow(sessionId)
      this.crossStreams.forget(sessionId)
    }
    return left.length
  }

  /** Sends `method` for a call of `owner`, shared with the other connections when it is a question (see {@link SessionQuestions.ask}). */
  ask(owner: object, request: AskedRequest, ownSend: ClientRequestSender): Promise<unknown> {
    return this.questions.ask(owner, request, ownSend)
  }

  /**
   * The URL elicitation `elicitationId` completed: `elicitation/complete` goes to every client
   * that was asked it, here and in other processes; `own` tells the asking client when the
   * elicitation was asked of it alone outside this audience.
   */
  completeElicitation(elicitationId: string, own: () => void): void {
    this.questions.complete(elicitationId, own)
  }

  /**
   * A client here cancelled `sessionId`'s turn, which another process runs (this one runs none):
   * that process is asked, through the board, to cancel it. False when no turn is open or the
   * store has no board.
   */
  cancelElsewhere(sessionId: string): boolean {
    return this.cross.requestCancel(sessionId)
  }

  /**
   * Tells every attached connection who is attached and what the session does
   * (`_meta.dsh.presence`), when that changed and someone else is or was attached. `joined` hears
   * it after its call's answer (a client drops updates of a session it was not told of yet).
   */
  private tellPresence(sessionId: string, joined?: Attached): void {
    this.cross.post(sessionId)
    const seats = this.seatsOf(sessionId)
    const open = this.sessions.get(sessionId)?.openTurn !== undefined
    const next = presenceOf(
      { attached: seats.length, clients: namesOf(seats) },
      this.cross.elsewhere(sessionId),
      this.waiting(sessionId),
      open,
    )
    if (!presenceChanged(this.presence.get(sessionId), next)) return
    this.presence.set(sessionId, next)
    const update = presenceUpdate(sessionId, next)
    for (const seat of seats) {
      if (seat === joined && seat.afterResponse) seat.afterResponse(() => void seat.notify(update))
      else void seat.notify(update)
    }
  }

  /** Detaches `owner` from every session (its connection ended). */
  detachAll(owner: object): void {
    for (const sessionId of [...this.bySession.keys()]) this.detach(sessionId, owner)
  }

  /** Whether a question of `sessionId`'s turn waits for an answer. */
  waiting(sessionId: string): boolean {
    return this.questions.waiting(sessionId)
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
   * live updates, a title it set): what it appends (in its async context, while it runs) feeds
   * `owner`'s seat but is not sent to it. What other calls append meanwhile, of this connection
   * or another, is sent to it as to any attached connection.
   */
  writing<T>(sessionId: string, owner: object, write: () => Promise<T>): Promise<T> {
    return this.writers.writing(sessionId, owner, write)
  }

  /**
   * Runs `wait`, a pause of a writing call (its prompt waiting in line): what is appended in it is
   * sent to its connection, as if it were not writing.
   */
  notWriting<T>(wait: () => Promise<T>): Promise<T> {
    return this.writers.notWriting(wait)
  }

  /**
   * A chunk `owner`'s turn streams before its event `seq` is appended: sent at once to the other
   * attached connections (and the other processes that have the session open), which then are not
   * sent the event's chunks again when it is appended.
   */
  streamed(sessionId: string, owner: object, update: SessionUpdateNotification, seq: number): void {
    if (!streamsAhead(update)) return
    this.crossStreams.published(sessionId, update, seq, this.cross.elsewhere(sessionId).attached > 0)
    this.streaming.streams(sessionId, seq)
    streamChunk(this.seatsOf(sessionId), owner, update, seq)
  }

  /**
   * Resolves once no event's chunks stream on `sessionId` (at once when none do): its chunks
   * carry the seq the event will get, so a change appended meanwhile (a title, a goal) would take
   * that seq. The caller appends in the same turn of the event loop as this resolves.
   */
  streamPassed(sessionId: string): Promise<void> {
    return this.streaming.passed(sessionId)
  }

  /** What the cross-process board needs of this audience. */
  private boardAudience(turns: RunningTurns | undefined): BoardAudience {
    return {
      local: (sessionId) => {
        const seats = this.seatsOf(sessionId)
        return { attached: seats.length, clients: namesOf(seats) }
      },
      answerers: (sessionId, method, params) => answerersAmong(this.seatsOf(sessionId), method, params),
      hold: (sessionId, question, open) => this.questions.hold(sessionId, question, open),
      show: (sessionId, update) => {
        for (const seat of this.seatsOf(sessionId)) void seat.notify(update)
      },
      changed: (sessionId) => this.tellPresence(sessionId),
      streamedElsewhere: (sessionId, writers) =>
        this.crossStreams.show(this.seatsOf(sessionId), sessionId, writers),
      cancelTurn: (sessionId) => {
        if (!turns?.isRunning(sessionId)) return false
        turns.cancel(sessionId)
        return true
      },
    }
  }

  private seatsOf(sessionId: string): readonly Attached[] {
    return this.bySession.get(sessionId) ?? []
  }

  private appended(session: Session, event: SessionEvent): void {
    this.streaming.appended(session.id, event.seq)
    for (const seat of this.seatsOf(session.id)) {
      const projected = seat.projector.updatesFor(event)
      // Its own call shows this event itself, now: what is held for it goes out first. Inside
      // another's turn (a title set meanwhile), what it shows is not marked as the turn's end.
      if (this.writers.showsItself(session.id, seat.owner)) {
        if (seat.turnEnds.flush() !== undefined || projected.length > 0)
          seat.endUnmarked = session.openTurn !== undefined
        continue
      }
      const updates = liveUpdates(seat, event, projected)
      noteTurnEnd(seat, session.id, event, updates)
      void seat.turnEnds.push(event, updates)
      tellTurnState(seat, session.id, event)
    }
    if (event.type === 'turn/end') this.crossStreams.ended(session.id)
    if (event.type === 'turn/start' || event.type === 'turn/end') this.tellPresence(session.id)
  }

  /**
   * What another process appended, just taken into the log (a watch reported it, or a pen or an
   * open caught up): sent to every attached connection, the one whose call is running too (the
   * catch-up it would have sent finds nothing then), as a replay projects it (see
   * {@link showCaughtUp}). True when someone was attached.
   */
  private caughtUp(session: Session, events: readonly SessionEvent[]): boolean {
    const seats = this.seatsOf(session.id)
    if (seats.length === 0) return false
    for (const seat of seats) showCaughtUp(seat, session, events)
    this.crossStreams.showReady(seats, session)
    this.tellPresence(session.id)
    return true
  }

  /**
   * Another process replaced the log (a rewind) or removed it: each attached connection is told
   * plainly (a notice with `_meta.dsh.resync`) and shown what the log holds after what it still
   * has right; a removed session detaches them.
   */
  private async resync(stale: Session): Promise<void> {
    const id = stale.id
    if (this.seatsOf(id).length === 0 || this.resyncing.has(id)) return
    this.resyncing.add(id)
    try {
      if (!this.sessions.letGoIfChanged(id)) return
      let fresh: Session
      try {
        fresh = await this.sessions.open(id)
      } catch (error) {
        for (const seat of this.seatsOf(id)) void seat.notify(goneNotice(id, (error as Error).message))
        this.bySession.delete(id)
        return
      }
      const kept = keptPrefix(stale, fresh)
      for (const seat of this.seatsOf(id)) {
        if (seat.resync) this.attach(id, seat.owner, { ...seat, ...seat.resync(fresh, kept) })
      }
    } finally {
      this.resyncing.delete(id)
    }
  }
}
