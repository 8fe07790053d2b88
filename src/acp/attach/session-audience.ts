import { AsyncLocalStorage } from 'node:async_hooks'
import {
  isWholeMessage,
  type Session,
  type SessionEvent,
  type SessionStore,
  type SessionUpdateNotification,
  WHOLE_MESSAGE_CHUNKS,
} from '../../session/index.js'
import type { ClientRequestSender } from '../client/client-bridge.js'
import { replayedTurnEnd } from '../views/replay-turn-ends.js'
import { type BoardAudience, CrossProcess } from './cross-process.js'
import { CrossStreams } from './cross-streams.js'
import { type Presence, presenceChanged, presenceUpdate } from './presence.js'
import { goneNotice, keptPrefix } from './resync.js'
import type { Seat } from './seat.js'
import { type Answerer, isSharedQuestion, questionOutcome, SharedQuestion } from './shared-questions.js'

/** The updates streamed before their event is appended (a model's text as it comes). */
const STREAMED: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk'])
/** What the event of streamed updates projects to (the whole message a replay shows). */
const STREAMED_WHOLE: ReadonlySet<string> = new Set(['agent_message', 'agent_thought'])

interface Attached extends Seat {
  /** The connection (its call scope): one seat per connection and session. */
  readonly owner: object
  /** The seq of the event whose chunks it was streamed before the event was appended. */
  streamedSeq: number
  /** The text of each kind of chunk streamed for `streamedSeq` (sent, or held in `lastChunk`). */
  streamedText: Map<string, string>
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
  /**
   * An update of another process's open turn went out before its end was known (a live client
   * is not kept waiting for the next event): the turn's end then comes as an update of its own.
   */
  endUnmarked: boolean
}

/**
 * A call that shows what it appends to a session itself (see {@link SessionAudience.writing}):
 * the async context of everything it runs, so that what it appends is known as its own.
 */
interface Writer {
  readonly sessionId: string
  readonly owner: object
  /** False once the call has ended (a task it left running appends as anyone else). */
  shows: boolean
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
  /** Sessions being read again after another process replaced their log. */
  private readonly resyncing = new Set<string>()
  /** The questions of each session put to its attached connections, not settled yet. */
  private readonly questions = new Map<string, Set<SharedQuestion>>()
  /** The presence each session's connections were last told. */
  private readonly presence = new Map<string, Presence>()
  /** Per session, the seq of the event whose chunks stream now (before it is appended). */
  private readonly streaming = new Map<string, number>()
  /** The writing call whose async context runs now, if any. */
  private readonly writer = new AsyncLocalStorage<Writer>()

  /** The session's life in the other processes that have it open (presence, questions). */
  private readonly cross: CrossProcess
  /** Turns' text as it streams, to and from the other processes. */
  private readonly crossStreams: CrossStreams

  constructor(private readonly sessions: SessionStore) {
    this.cross = new CrossProcess(sessions, this.boardAudience())
    this.crossStreams = new CrossStreams(sessions)
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
      joinedDuringSeq: this.streaming.get(sessionId) ?? 0,
      lastChunk: undefined,
      endUnmarked: false,
    }
    this.bySession.set(sessionId, [...others, attached])
    this.cross.follow(sessionId)
    // A question still open is put to it too.
    const answerer = answererOf(attached)
    if (answerer) {
      for (const question of this.questions.get(sessionId) ?? []) {
        if (answerer.canAnswer?.(question.method) ?? true) question.askOf(answerer)
      }
    }
    this.tellPresence(sessionId, attached)
  }

  /** Detaches `owner` from `sessionId`; returns how many connections stay attached. */
  detach(sessionId: string, owner: object): number {
    const seats = this.seatsOf(sessionId)
    const left = seats.filter((attached) => attached.owner !== owner)
    if (left.length === 0) this.bySession.delete(sessionId)
    else this.bySession.set(sessionId, left)
    if (left.length < seats.length) {
      for (const question of this.questions.get(sessionId) ?? []) question.withdraw(owner)
      this.tellPresence(sessionId)
    }
    if (left.length === 0) {
      this.presence.delete(sessionId)
      this.cross.unfollow(sessionId)
      this.crossStreams.forget(sessionId)
    }
    return left.length
  }

  /**
   * Sends `method` for a call of `owner`: a question every attached connection can answer
   * ({@link isSharedQuestion}) is held until settled and goes to `owner` through `ownSend` and to
   * each other connection that can answer it, now or when it attaches while the question waits;
   * the first answer is the result (see {@link SharedQuestion}). Anything else goes to `owner`
   * alone through `ownSend`.
   */
  ask(
    owner: object,
    method: string,
    params: unknown,
    signal: AbortSignal | undefined,
    ownSend: ClientRequestSender,
  ): Promise<unknown> {
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId
    if (!isSharedQuestion(method, params) || typeof sessionId !== 'string')
      return ownSend(method, params, signal)
    // Every shareable question is held here, even with one client attached: a client that
    // attaches while it waits (another window, a resumed remote connection) is asked too. The
    // asking connection is asked through its own sender (its view's wrapping of requests).
    const others = this.seatsOf(sessionId).flatMap((seat) => {
      const answerer = answererOf(seat)
      return answerer && answerer.owner !== owner && (answerer.canAnswer?.(method) ?? true) ? [answerer] : []
    })
    const own = this.seatsOf(sessionId).find((seat) => seat.owner === owner)
    const answerers: Answerer[] = [
      {
        owner,
        ask: ownSend,
        notify: own ? own.notify : () => Promise.resolve(),
        ...(own?.name !== undefined && { name: own.name }),
      },
      ...others,
    ]
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const onAbort = () => question.cancel(signal?.reason)
      const question: SharedQuestion = new SharedQuestion(
        sessionId,
        method,
        params,
        resolve,
        reject,
        (settled, answer) => {
          signal?.removeEventListener('abort', onAbort)
          this.questions.get(sessionId)?.delete(settled)
          const outcome = questionOutcome(sessionId, params, answer)
          if (settled.askedOthers || this.cross.elsewhere(sessionId).attached > 0) {
            for (const seat of this.seatsOf(sessionId)) void seat.notify(outcome)
          }
          this.cross.settled(sessionId, boardId, outcome)
          this.tellPresence(sessionId)
        },
      )
      const boardId = this.cross.asked(sessionId, question)
      signal?.addEventListener('abort', onAbort, { once: true })
      let open = this.questions.get(sessionId)
      if (!open) {
        open = new Set()
        this.questions.set(sessionId, open)
      }
      open.add(question)
      for (const answerer of answerers) question.askOf(answerer)
      this.tellPresence(sessionId)
    })
  }

  /**
   * Tells every attached connection who is attached and what the session does
   * (`_meta.dsh.presence`), when that changed and someone else is or was attached. `joined` hears
   * it after its call's answer (a client drops updates of a session it was not told of yet).
   */
  private tellPresence(sessionId: string, joined?: Attached): void {
    this.cross.post(sessionId)
    const seats = this.seatsOf(sessionId)
    const session = this.sessions.get(sessionId)
    const elsewhere = this.cross.elsewhere(sessionId)
    const waiting = this.waiting(sessionId) || elsewhere.waiting
    const state = waiting ? 'waiting' : session?.openTurn !== undefined ? 'running' : 'idle'
    const next: Presence = {
      attached: seats.length + elsewhere.attached,
      clients: [
        ...seats.flatMap((seat) => (seat.name !== undefined ? [seat.name] : [])),
        ...elsewhere.clients,
      ],
      state,
    }
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
    return (this.questions.get(sessionId)?.size ?? 0) > 0
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
  async writing<T>(sessionId: string, owner: object, write: () => Promise<T>): Promise<T> {
    const writer: Writer = { sessionId, owner, shows: true }
    try {
      return await this.writer.run(writer, write)
    } finally {
      writer.shows = false
    }
  }

  /**
   * Runs `wait`, a pause of a writing call (its prompt waiting in line): what is appended in it is
   * sent to its connection, as if it were not writing.
   */
  notWriting<T>(wait: () => Promise<T>): Promise<T> {
    return this.writer.exit(wait)
  }

  /** Whether what is appended to `sessionId` now is appended by a call of `seat`'s connection that shows it itself. */
  private showsItself(sessionId: string, seat: Attached): boolean {
    const writer = this.writer.getStore()
    return writer?.shows === true && writer.owner === seat.owner && writer.sessionId === sessionId
  }

  /**
   * A chunk `owner`'s turn streams before its event `seq` is appended: sent at once to the other
   * attached connections (and the other processes that have the session open), which then are not
   * sent the event's chunks again when it is appended.
   */
  streamed(sessionId: string, owner: object, update: SessionUpdateNotification, seq: number): void {
    if (!STREAMED.has(update.update.sessionUpdate)) return
    this.crossStreams.published(sessionId, update, seq, this.cross.elsewhere(sessionId).attached > 0)
    this.showStreamed(sessionId, owner, update, seq)
  }

  /** Shows a streamed chunk of event `seq` to every attached connection but `owner`'s. */
  private showStreamed(
    sessionId: string,
    owner: object | undefined,
    update: SessionUpdateNotification,
    seq: number,
  ): void {
    this.streaming.set(sessionId, seq)
    for (const seat of this.seatsOf(sessionId)) {
      if (seat.owner === owner || seat.joinedDuringSeq === seq) continue
      void seat.turnEnds.flush()
      if (seat.lastChunk) void seat.notify(seat.lastChunk)
      if (seat.streamedSeq !== seq) seat.streamedText = new Map()
      seat.streamedSeq = seq
      const kind = update.update.sessionUpdate
      seat.streamedText.set(kind, (seat.streamedText.get(kind) ?? '') + chunkText(update))
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
    // What was not streamed of the message (another process's chunks read too late) follows.
    const rest = projected.flatMap((update) =>
      STREAMED_WHOLE.has(update.update.sessionUpdate) ? unstreamedPart(update, seat.streamedText) : [update],
    )
    return last ? [last, ...rest] : rest
  }

  /** What the cross-process board needs of this audience. */
  private boardAudience(): BoardAudience {
    return {
      local: (sessionId) => {
        const seats = this.seatsOf(sessionId)
        return {
          attached: seats.length,
          clients: seats.flatMap((seat) => (seat.name !== undefined ? [seat.name] : [])),
        }
      },
      answerers: (sessionId, method) =>
        this.seatsOf(sessionId).flatMap((seat) => {
          const answerer = answererOf(seat)
          return answerer && (answerer.canAnswer?.(method) ?? true) ? [answerer] : []
        }),
      hold: (sessionId, question, open) => {
        const held = this.questions.get(sessionId) ?? new Set()
        if (open) held.add(question)
        else held.delete(question)
        if (held.size > 0) this.questions.set(sessionId, held)
        else this.questions.delete(sessionId)
        this.tellPresence(sessionId)
      },
      show: (sessionId, update) => {
        for (const seat of this.seatsOf(sessionId)) void seat.notify(update)
      },
      changed: (sessionId) => this.tellPresence(sessionId),
      streamedElsewhere: (sessionId, writers) => {
        const session = this.sessions.get(sessionId)
        if (!session) return
        const seq = session.lastSeq + 1
        for (const update of this.crossStreams.look(sessionId, writers, session.lastSeq))
          this.showStreamed(sessionId, undefined, update, seq)
      },
    }
  }

  private seatsOf(sessionId: string): readonly Attached[] {
    return this.bySession.get(sessionId) ?? []
  }

  private appended(session: Session, event: SessionEvent): void {
    if ((this.streaming.get(session.id) ?? Number.POSITIVE_INFINITY) <= event.seq)
      this.streaming.delete(session.id)
    for (const seat of this.seatsOf(session.id)) {
      const projected = seat.projector.updatesFor(event)
      // Its own call shows this event itself, now: what is held for it goes out first.
      if (this.showsItself(session.id, seat)) {
        void seat.turnEnds.flush()
        continue
      }
      void seat.turnEnds.push(event, this.liveUpdates(seat, event, projected))
    }
    if (event.type === 'turn/end') this.crossStreams.ended(session.id)
    if (event.type === 'turn/start' || event.type === 'turn/end') this.tellPresence(session.id)
  }

  /**
   * What another process appended, just taken into the log (a watch reported it, or a pen or an
   * open caught up): sent to every attached connection, the one whose call is running too (the
   * catch-up it would have sent finds nothing then), as a replay projects it. Inside a turn that
   * is still open the last update goes out at once rather than wait for the next event; the
   * turn's end then comes as a `session_info_update` with `_meta.dsh.turnEnd` when it has no
   * update of its own. True when someone was attached.
   */
  private caughtUp(session: Session, events: readonly SessionEvent[]): boolean {
    const seats = this.seatsOf(session.id)
    if (seats.length === 0) return false
    const open = session.openTurn !== undefined
    const last = events.at(-1)?.seq ?? 0
    if ((this.streaming.get(session.id) ?? Number.POSITIVE_INFINITY) <= last)
      this.streaming.delete(session.id)
    for (const seat of seats) {
      for (const event of events) {
        const updates = this.liveUpdates(seat, event, seat.projector.updatesFor(event))
        void seat.turnEnds.push(event, updates)
        if (event.type === 'turn/end') {
          if (updates.length === 0 && seat.endUnmarked) {
            void seat.notify({
              sessionId: session.id,
              update: { sessionUpdate: 'session_info_update' },
              _meta: { dsh: { seq: event.seq, turnEnd: replayedTurnEnd(event) } },
            })
          }
          seat.endUnmarked = false
        } else if (updates.length > 0) seat.endUnmarked = false
      }
      if (open && seat.turnEnds.flush() !== undefined) seat.endUnmarked = true
    }
    for (const update of this.crossStreams.ready(session.id, session.lastSeq))
      this.showStreamed(session.id, undefined, update, session.lastSeq + 1)
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

/** `seat` as a question sees it, when it can be asked. */
function answererOf(seat: Attached): Answerer | undefined {
  if (!seat.ask) return undefined
  return {
    owner: seat.owner,
    ask: seat.ask,
    notify: seat.notify,
    ...(seat.name !== undefined && { name: seat.name }),
    ...(seat.canAnswer !== undefined && { canAnswer: seat.canAnswer }),
  }
}

function chunkText(notification: SessionUpdateNotification): string {
  const update = notification.update
  if (!('content' in update)) return ''
  const content: unknown = update.content
  if (!content || typeof content !== 'object' || Array.isArray(content)) return ''
  const { type, text } = content as { type?: unknown; text?: unknown }
  return type === 'text' && typeof text === 'string' ? text : ''
}

/**
 * The part of a whole message (its event's projection) its streamed chunks did not carry, as one
 * chunk; nothing when they carried it all (or something else than its start).
 */
function unstreamedPart(
  notification: SessionUpdateNotification,
  streamed: ReadonlyMap<string, string>,
): SessionUpdateNotification[] {
  const update = notification.update
  if (!isWholeMessage(update)) return []
  const chunk = WHOLE_MESSAGE_CHUNKS[update.sessionUpdate]
  const text = update.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  const sent = streamed.get(chunk) ?? ''
  if (text.length <= sent.length || !text.startsWith(sent)) return []
  return [
    {
      ...notification,
      update: {
        sessionUpdate: chunk,
        messageId: update.messageId,
        content: { type: 'text', text: text.slice(sent.length) },
      },
    },
  ]
}
