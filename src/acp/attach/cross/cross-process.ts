import { randomBytes } from 'node:crypto'
import type { BoardNote, SessionStore, SessionUpdateNotification } from '../../../session/index.js'
import { type BoardAudience, type Elsewhere, type Followed, NOBODY } from '../board-audience.js'
import { QuestionWithdrawn, SharedQuestion, urlElicitationId } from '../questions/shared-questions.js'
import { asksToCancel, openTurnOf, sameTurn } from './cross-cancel.js'

/** How many settled questions a note keeps, for processes that are slow to look. */
const KEPT_OUTCOMES = 16

/**
 * While other processes are attached, their notes are read again this often as well as at each
 * report of the watch: a process that dies says nothing, and its note (its clients, its questions)
 * must go.
 */
export const RELOOK_MS = 2000

/**
 * A session's life across the processes that have it open, through the store's notice board:
 * each process posts who of its clients is attached and which questions its turn waits on; the
 * others show that in presence, and ask their own clients the questions. An answer given in
 * another process is offered on the board (the first offered counts) and settles the question in
 * the process that asked it, which then posts the outcome: every other process withdraws its
 * copies and shows it. Nothing happens where the store has no board.
 */
export class CrossProcess {
  private readonly followed = new Map<string, Followed>()
  private counter = 0
  /** Makes this process's question ids unique across hosts too (pids repeat across machines). */
  private readonly token = randomBytes(4).toString('hex')

  constructor(
    private readonly sessions: SessionStore,
    private readonly audience: BoardAudience,
  ) {}

  /** Starts following the session (its first client attached here); a second call does nothing. */
  follow(sessionId: string): void {
    if (!this.sessions.board || this.followed.has(sessionId)) return
    const entry: Followed = {
      stop: undefined,
      timer: undefined,
      own: new Map(),
      outcomes: [],
      foreign: new Map(),
      foreignUrls: new Map(),
      completed: [],
      elsewhere: NOBODY,
      posted: '',
      looking: false,
      again: false,
      cancel: undefined,
      cancelled: undefined,
    }
    this.followed.set(sessionId, entry)
    entry.stop = this.sessions.watchStored(sessionId, () => this.look(sessionId))
    this.look(sessionId)
    this.post(sessionId)
  }

  /** Stops following (no client left here): its note is taken down, its copies withdrawn. */
  unfollow(sessionId: string): void {
    const entry = this.followed.get(sessionId)
    if (!entry || entry.own.size > 0) return
    entry.stop?.()
    clearInterval(entry.timer)
    this.followed.delete(sessionId)
    for (const question of entry.foreign.values())
      question.cancel(new QuestionWithdrawn('no client left here'))
    this.sessions.board?.post(sessionId, undefined)
  }

  /** The clients of other processes, as presence counts them. */
  elsewhere(sessionId: string): Elsewhere {
    return this.followed.get(sessionId)?.elsewhere ?? NOBODY
  }

  /** A question of this process's turn: put on the board; `settle` answers it from elsewhere. */
  asked(sessionId: string, question: SharedQuestion): string | undefined {
    const entry = this.followed.get(sessionId)
    if (!entry) return undefined
    const id = `${process.pid}-${this.token}-${++this.counter}`
    entry.own.set(id, question)
    this.post(sessionId)
    return id
  }

  /** A question of this process is settled: off the board, its outcome posted for the others. */
  settled(sessionId: string, id: string | undefined, outcome: SessionUpdateNotification): void {
    const entry = this.followed.get(sessionId)
    if (!entry || id === undefined || !entry.own.delete(id)) return
    entry.outcomes = [...entry.outcomes, { question: id, outcome }].slice(-KEPT_OUTCOMES)
    this.post(sessionId)
  }

  /**
   * A client here cancelled the session's open turn, which another process runs: the note asks
   * for it, naming the turn, until the turn ends. False when no turn is open here or the session
   * is not followed (no board).
   */
  requestCancel(sessionId: string): boolean {
    const entry = this.followed.get(sessionId)
    const open = openTurnOf(this.sessions.get(sessionId))
    if (!entry || !open) return false
    entry.cancel = open
    this.post(sessionId)
    return true
  }

  /** A URL elicitation of this process completed: the others tell the clients they asked it. */
  completed(sessionId: string, id: string | undefined): void {
    const entry = this.followed.get(sessionId)
    if (!entry || id === undefined) return
    entry.completed = [...entry.completed, id].slice(-KEPT_OUTCOMES)
    this.post(sessionId)
  }

  /** Posts this process's note again when it changed (a client came or went). */
  post(sessionId: string): void {
    const entry = this.followed.get(sessionId)
    const board = this.sessions.board
    if (!entry || !board) return
    const local = this.audience.local(sessionId)
    // A cancel is asked for only while its turn is open (an ended turn's is taken down).
    if (!sameTurn(entry.cancel, openTurnOf(this.sessions.get(sessionId)))) entry.cancel = undefined
    const note: BoardNote = {
      ...local,
      questions: [...entry.own].map(([question, asked]) => ({
        question,
        method: asked.method,
        params: asked.params,
      })),
      outcomes: entry.outcomes,
      ...(entry.cancel && { cancel: entry.cancel }),
      ...(entry.completed.length > 0 && { completed: entry.completed }),
    }
    const text = JSON.stringify(note)
    if (text === entry.posted) return
    entry.posted = text
    board.post(sessionId, note)
  }

  /**
   * The board of the session may have changed: looks at it, one look at a time (a report during a
   * look makes one more after it).
   */
  private look(sessionId: string): void {
    const entry = this.followed.get(sessionId)
    if (!entry) return
    if (entry.looking) {
      entry.again = true
      return
    }
    entry.looking = true
    this.lookOnce(sessionId, entry)
      // The board could not be read (the backend said why): the next report or relook tries again.
      .catch(() => {})
      .finally(() => {
        entry.looking = false
        if (!entry.again) return
        entry.again = false
        this.look(sessionId)
      })
  }

  /** Answers to take, questions to ask, presence. */
  private async lookOnce(sessionId: string, entry: Followed): Promise<void> {
    const board = this.sessions.board
    if (!board) return
    for (const { question, answer } of await board.answers(sessionId, [...entry.own.keys()])) {
      entry.own.get(question)?.answerElsewhere(answer.result, answer.by)
    }
    const notes = await board.read(sessionId)
    if (this.followed.get(sessionId) !== entry) return
    this.audience.streamedElsewhere(
      sessionId,
      notes.map((n) => n.from),
    )
    this.cancelAsked(sessionId, entry, notes)
    this.askForeign(
      sessionId,
      entry,
      notes.map((n) => n.note),
    )
    this.tellCompleted(sessionId, entry, notes)
    const elsewhere = elsewhereOf(notes.map((n) => n.note))
    if (JSON.stringify(elsewhere) !== JSON.stringify(entry.elsewhere)) {
      entry.elsewhere = elsewhere
      this.audience.changed(sessionId)
    }
    this.keepLooking(sessionId, entry)
  }

  /** Cancels this process's turn when another process's note asks for it (once per turn). */
  private cancelAsked(sessionId: string, entry: Followed, notes: readonly { note: BoardNote }[]): void {
    const asked = asksToCancel(
      notes.map((n) => n.note),
      this.sessions.get(sessionId),
    )
    if (!asked || sameTurn(asked, entry.cancelled)) return
    if (this.audience.cancelTurn(sessionId)) entry.cancelled = asked
  }

  /** Tells this process's clients asked a URL elicitation of another process that it completed. */
  private tellCompleted(sessionId: string, entry: Followed, notes: readonly { note: BoardNote }[]): void {
    for (const { note } of notes) {
      for (const id of Array.isArray(note.completed) ? note.completed : []) {
        const question = entry.foreignUrls.get(id)
        if (!question) continue
        entry.foreignUrls.delete(id)
        const here = this.audience.answerers(sessionId, question.method, question.params).map((a) => a.owner)
        const elicitationId = urlElicitationId(question.method, question.params)
        question.tellAsked('elicitation/complete', { elicitationId }, (owner) => here.includes(owner))
      }
    }
  }

  /** Looks again every {@link RELOOK_MS} while another process is attached or asks something. */
  private keepLooking(sessionId: string, entry: Followed): void {
    const needed = entry.elsewhere.attached > 0 || entry.foreign.size > 0
    if (needed && !entry.timer) {
      entry.timer = setInterval(() => this.look(sessionId), RELOOK_MS)
      entry.timer.unref()
    } else if (!needed && entry.timer) {
      clearInterval(entry.timer)
      entry.timer = undefined
    }
  }

  /** Asks this process's clients the questions other processes posted; withdraws the settled. */
  private askForeign(sessionId: string, entry: Followed, notes: readonly BoardNote[]): void {
    const open = new Map(
      notes
        .flatMap((note) => (Array.isArray(note.questions) ? note.questions : []))
        .map((q) => [q.question, q]),
    )
    for (const [id, question] of entry.foreign) {
      if (open.has(id)) continue
      entry.foreign.delete(id)
      question.cancel(new QuestionWithdrawn('settled in another process'))
      if (urlElicitationId(question.method, question.params) !== undefined)
        keepUrl(entry.foreignUrls, id, question)
      const outcome = notes
        .flatMap((note) => (Array.isArray(note.outcomes) ? note.outcomes : []))
        .find((o) => o.question === id)
      if (outcome) this.audience.show(sessionId, outcome.outcome as SessionUpdateNotification)
    }
    for (const [id, posted] of open) {
      if (entry.foreign.has(id) || typeof posted.method !== 'string') continue
      const question: SharedQuestion = new SharedQuestion(
        { sessionId, method: posted.method, params: posted.params },
        {
          resolve: (result) =>
            void this.sessions.board
              ?.offer(sessionId, id, { result, ...answeredBy(question) })
              .catch(() => {}),
          reject: () => {},
          done: () => this.audience.hold(sessionId, question, false),
        },
      )
      entry.foreign.set(id, question)
      this.audience.hold(sessionId, question, true)
      for (const answerer of this.audience.answerers(sessionId, posted.method, posted.params))
        question.askOf(answerer)
    }
  }
}

/** What the notes of other processes add up to. */
function elsewhereOf(notes: readonly BoardNote[]): Elsewhere {
  return {
    attached: notes.reduce((sum, note) => sum + (Number.isInteger(note.attached) ? note.attached : 0), 0),
    clients: notes.flatMap((note) =>
      Array.isArray(note.clients) ? note.clients.filter((c) => typeof c === 'string') : [],
    ),
    waiting: notes.some((note) => Array.isArray(note.questions) && note.questions.length > 0),
  }
}

function answeredBy(question: SharedQuestion): { by?: string } {
  const by = question.answeredBy
  return by !== undefined ? { by } : {}
}

/** Keeps a settled URL elicitation of another process for its completion (the newest few). */
function keepUrl(urls: Map<string, SharedQuestion>, id: string, question: SharedQuestion): void {
  urls.set(id, question)
  if (urls.size > KEPT_OUTCOMES) urls.delete(urls.keys().next().value as string)
}
