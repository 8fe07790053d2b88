import { constants } from 'node:os'

/** How an agent process ended: its exit code, or the signal that ended it. */
export interface AgentExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** The shell's convention for a status: the code, or 128 + the signal's number. */
export function exitStatus(exit: AgentExit): number {
  if (exit.code !== null) return exit.code
  const number = exit.signal !== null ? constants.signals[exit.signal] : undefined
  return number !== undefined ? 128 + number : 1
}

/** A readable description, e.g. `exit code 3` or `signal SIGTERM`. */
export function describeExit(exit: AgentExit): string {
  return exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal ?? 'unknown'}`
}
