import type { ClientRequestSender } from '../../client/client-bridge.js'
import { type Attached, answererOf, answerersAmong } from '../attached.js'
import type { CrossProcess } from '../cross/cross-process.js'
import {
  type Answerer,
  isSharedQuestion,
  questionOutcome,
  SharedQuestion,
  urlElicitationId,
} from './shared-questions.js'

/** URL elicitations remembered for their completion, at most; the oldest is forgotten first. */
const KEPT_URLS = 100

/** A URL elicitation asked here: told of its completion (see {@link SessionQuestions.complete}). */
interface AskedUrl {
  readonly sessionId: string
  readonly question: SharedQuestion
  readonly boardId: string | undefined
}

/** A request a call sends its client, perhaps a question to share (see {@link SessionQuestions.ask}). */
export interface AskedRequest {
  readonly method: string
  readonly params: unknown
  readonly signal?: AbortSignal | undefined
}

/** What the questions need of the audience. */
export interface QuestionSeats {
  seatsOf(sessionId: string): readonly Attached[]
  /** Presence may have changed (a question opened or was settled). */
  changed(sessionId: string): void
}

/**
 * The questions of each session put to its attached connections, not settled yet (see
 * {@link SessionQuestions.ask}), and those of other processes' turns asked here.
 */
export class SessionQuestions {
  private readonly open = new Map<string, Set<SharedQuestion>>()
  /** The URL elicitations asked, by `elicitationId`. */
  private readonly urls = new Map<string, AskedUrl>()

  constructor(
    private readonly seats: QuestionSeats,
    private readonly cross: CrossProcess,
  ) {}

  /** Whether a question of `sessionId` waits for an answer. */
  waiting(sessionId: string): boolean {
    return (this.open.get(sessionId)?.size ?? 0) > 0
  }

  /**
   * The URL elicitation `elicitationId` completed (its MCP server said so): every connection of
   * this process it was asked of, and still attached, is sent `elicitation/complete`, and so are
   * those of other processes (through the board). One asked nowhere else is told through `own`.
   */
  complete(elicitationId: string, own: () => void): void {
    const asked = this.urls.get(elicitationId)
    if (!asked) {
      own()
      return
    }
    this.urls.delete(elicitationId)
    const { sessionId, question, boardId } = asked
    const seats = this.seats.seatsOf(sessionId)
    const attached = (owner: object) => seats.some((seat) => seat.owner === owner)
    question.tellAsked('elicitation/complete', { elicitationId }, attached)
    this.cross.completed(sessionId, boardId)
  }

  /** A connection attached: every question still open that it can answer is put to it too. */
  putTo(sessionId: string, seat: Attached): void {
    const answerer = answererOf(seat)
    if (!answerer) return
    for (const question of this.open.get(sessionId) ?? []) {
      if (answerer.canAnswer?.(question.method, question.params) ?? true) question.askOf(answerer)
    }
  }

  /** `owner` detached: its copies are withdrawn. */
  withdraw(sessionId: string, owner: object): void {
    for (const question of this.open.get(sessionId) ?? []) question.withdraw(owner)
  }

  /** Holds a question while it is open (asked of clients that attach meanwhile), or lets it go. */
  hold(sessionId: string, question: SharedQuestion, open: boolean): void {
    const held = this.open.get(sessionId) ?? new Set()
    if (open) held.add(question)
    else held.delete(question)
    if (held.size > 0) this.open.set(sessionId, held)
    else this.open.delete(sessionId)
    this.seats.changed(sessionId)
  }

  /**
   * Sends `method` for a call of `owner`: a question every attached connection can answer
   * ({@link isSharedQuestion}) is held until settled and goes to `owner` through `ownSend` and to
   * each other connection that can answer it, now or when it attaches while the question waits;
   * the first answer is the result (see {@link SharedQuestion}). Anything else goes to `owner`
   * alone through `ownSend`.
   */
  ask(owner: object, request: AskedRequest, ownSend: ClientRequestSender): Promise<unknown> {
    const { method, params, signal } = request
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId
    if (!isSharedQuestion(method, params) || typeof sessionId !== 'string')
      return ownSend(method, params, signal)
    // Every shareable question is held here, even with one client attached: a client that
    // attaches while it waits (another window, a resumed remote connection) is asked too. The
    // asking connection is asked through its own sender (its view's wrapping of requests).
    const seats = this.seats.seatsOf(sessionId)
    const others = answerersAmong(
      seats.filter((seat) => seat.owner !== owner),
      method,
      params,
    )
    const own = seats.find((seat) => seat.owner === owner)
    const answerers: Answerer[] = [ownAnswerer(owner, own, ownSend), ...others]
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const onAbort = () => question.cancel(signal?.reason)
      const question: SharedQuestion = new SharedQuestion(
        { sessionId, method, params },
        {
          resolve,
          reject,
          done: (_, answer) => {
            signal?.removeEventListener('abort', onAbort)
            this.settled(question, boardId, answer)
          },
        },
      )
      const boardId = this.cross.asked(sessionId, question)
      this.rememberUrl(sessionId, question, boardId)
      signal?.addEventListener('abort', onAbort, { once: true })
      const held = this.open.get(sessionId) ?? new Set()
      this.open.set(sessionId, held.add(question))
      for (const answerer of answerers) question.askOf(answerer)
      this.seats.changed(sessionId)
    })
  }

  /** `question` was settled: every attached connection is shown how, here and on the board. */
  private settled(
    question: SharedQuestion,
    boardId: string | undefined,
    answer: { result: unknown; by: Answerer } | undefined,
  ): void {
    const { sessionId, params } = question
    this.open.get(sessionId)?.delete(question)
    const outcome = questionOutcome(sessionId, params, answer)
    if (question.askedOthers || this.cross.elsewhere(sessionId).attached > 0) {
      for (const seat of this.seats.seatsOf(sessionId)) void seat.notify(outcome)
    }
    this.cross.settled(sessionId, boardId, outcome)
    this.seats.changed(sessionId)
  }

  /** Remembers a URL elicitation, to tell everyone asked of its completion. */
  private rememberUrl(sessionId: string, question: SharedQuestion, boardId: string | undefined): void {
    const id = urlElicitationId(question.method, question.params)
    if (id === undefined) return
    this.urls.delete(id)
    this.urls.set(id, { sessionId, question, boardId })
    if (this.urls.size > KEPT_URLS) this.urls.delete(this.urls.keys().next().value as string)
  }
}

/** The asking connection as its question sees it: asked through its own sender. */
function ownAnswerer(owner: object, own: Attached | undefined, ownSend: ClientRequestSender): Answerer {
  return {
    owner,
    ask: ownSend,
    notify: own ? own.notify : () => Promise.resolve(),
    ...(own?.name !== undefined && { name: own.name }),
    ...(own?.tell !== undefined && { tell: own.tell }),
  }
}
