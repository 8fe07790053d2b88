import type { BoardCancel, SessionUpdateNotification } from '../../session/index.js'
import type { Answerer, SharedQuestion } from './questions/shared-questions.js'

/** What the board needs of the audience of this process. */
export interface BoardAudience {
  /** This process's clients of the session: how many, and the names of those that gave one. */
  local(sessionId: string): { attached: number; clients: string[] }
  /** This process's clients that can answer `method` with `params`. */
  answerers(sessionId: string, method: string, params: unknown): Answerer[]
  /** Holds a question while it is open (asked of clients that attach meanwhile), or lets it go. */
  hold(sessionId: string, question: SharedQuestion, open: boolean): void
  /** Shows `update` to every client of this process that has the session open. */
  show(sessionId: string, update: SessionUpdateNotification): void
  /** What other processes say about the session changed: presence is told again. */
  changed(sessionId: string): void
  /** Shows what the turns of the processes that posted as `writers` streamed since the last look. */
  streamedElsewhere(sessionId: string, writers: readonly string[]): void
  /** Cancels the turn this process runs on the session (false when it runs none). */
  cancelTurn(sessionId: string): boolean
}

/** The clients of other processes, as presence counts them. */
export interface Elsewhere {
  readonly attached: number
  readonly clients: readonly string[]
  /** Whether a turn of another process waits on a question. */
  readonly waiting: boolean
}

/** What this process knows and keeps of one session it follows on the board. */
export interface Followed {
  stop: (() => void) | undefined
  timer: NodeJS.Timeout | undefined
  /** This process's questions on the board, by id. */
  readonly own: Map<string, SharedQuestion>
  outcomes: { question: string; outcome: unknown }[]
  /** Questions of other processes asked of this process's clients, by id. */
  readonly foreign: Map<string, SharedQuestion>
  /** Settled URL elicitations of other processes asked here, by id: told of their completion. */
  readonly foreignUrls: Map<string, SharedQuestion>
  /** This process's URL elicitations whose completion came (question ids, newest last). */
  completed: string[]
  elsewhere: Elsewhere
  posted: string
  /** A look at the board under way (one at a time), and whether another was asked for meanwhile. */
  looking: boolean
  again: boolean
  /** The turn of another process a client here asked to cancel (on the note while it is open). */
  cancel: BoardCancel | undefined
  /** The last turn of this process cancelled for another process's client (cancelled once). */
  cancelled: BoardCancel | undefined
}

/** Nobody elsewhere. */
export const NOBODY: Elsewhere = { attached: 0, clients: [], waiting: false }

/** The turns this process runs, as the audience may stop them for another process's client. */
export interface RunningTurns {
  /** Whether this process runs a turn of the session now. */
  isRunning(sessionId: string): boolean
  /** Cancels the turn this process runs on the session, as its own client's cancel would. */
  cancel(sessionId: string): void
}
