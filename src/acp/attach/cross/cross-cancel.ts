import type { BoardCancel, BoardNote, Session } from '../../../session/index.js'

/** The open turn of `session` as a cancel on the board names it; undefined when none is open. */
export function openTurnOf(session: Session | undefined): BoardCancel | undefined {
  const turn = session?.openTurn
  if (session === undefined || turn === undefined) return undefined
  const span = session.turnSpans().at(-1)
  const start = span ? session.at(span.start) : undefined
  if (!span || span.turn !== turn || start?.type !== 'turn/start') return undefined
  return { turn, seq: start.seq, time: start.time }
}

/** Whether two names of a turn name the same one. */
export function sameTurn(a: BoardCancel | undefined, b: BoardCancel | undefined): boolean {
  return a !== undefined && b !== undefined && a.turn === b.turn && a.seq === b.seq && a.time === b.time
}

/** The cancel a note asks for, when it is well formed (a note is another process's JSON). */
export function cancelOf(note: BoardNote): BoardCancel | undefined {
  const cancel: unknown = note.cancel
  if (typeof cancel !== 'object' || cancel === null) return undefined
  const { turn, seq, time } = cancel as Record<string, unknown>
  if (typeof turn !== 'number' || typeof seq !== 'number' || typeof time !== 'string') return undefined
  return Number.isSafeInteger(turn) && Number.isSafeInteger(seq) ? { turn, seq, time } : undefined
}

/**
 * Whether a note asks to cancel the turn this process runs on `session` (its open turn, named
 * alike): a cancel asked for a turn that has ended names no open turn, so it never reaches a later one.
 */
export function asksToCancel(
  notes: readonly BoardNote[],
  session: Session | undefined,
): BoardCancel | undefined {
  const open = openTurnOf(session)
  return notes.some((note) => sameTurn(cancelOf(note), open)) ? open : undefined
}
