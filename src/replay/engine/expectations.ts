import type { LineKind, ScriptLine } from '../script.js'

/** What the waiting counts an agent message as: its id for responses, else its kind and method. */
function countKey(kind: LineKind, method: string | undefined, idKey: string | undefined): string {
  if (kind === 'response') return `response ${idKey}`
  if (kind === 'request') return `request ${method}`
  if (kind === 'notification') return `notification ${method}`
  return kind
}

/**
 * Which of the transcript's agent messages the live agent has sent, by count: the k-th expected
 * message of a key (a response's id, a request's or notification's method) has arrived once k live
 * messages of that key have. Content does not matter here (comparing is done afterwards), so a
 * changed message still lets the replay go on. Messages given up on count as arrived.
 */
export class Expectations {
  private readonly arrived = new Map<string, number>()
  private readonly givenUp = new Map<string, number>()
  private readonly ordinal = new Map<number, number>()

  constructor(lines: readonly ScriptLine[]) {
    const seen = new Map<string, number>()
    for (const line of lines) {
      if (line.dir !== 'out') continue
      const key = countKey(line.kind, line.method, line.idKey)
      const count = (seen.get(key) ?? 0) + 1
      seen.set(key, count)
      this.ordinal.set(line.line, count)
    }
  }

  /** One live agent message arrived. */
  arrive(kind: LineKind, method: string | undefined, idKey: string | undefined): void {
    const key = countKey(kind, method, idKey)
    this.arrived.set(key, (this.arrived.get(key) ?? 0) + 1)
  }

  /** The lines among `expected` (agent lines of the transcript) that have not arrived. */
  missing(expected: readonly ScriptLine[]): ScriptLine[] {
    return expected.filter((line) => {
      const key = countKey(line.kind, line.method, line.idKey)
      const have = (this.arrived.get(key) ?? 0) + (this.givenUp.get(key) ?? 0)
      return have < (this.ordinal.get(line.line) as number)
    })
  }

  /** Stops waiting for these lines (they are reported missing by the comparison). */
  giveUp(lines: readonly ScriptLine[]): void {
    for (const line of lines) {
      const key = countKey(line.kind, line.method, line.idKey)
      this.givenUp.set(key, (this.givenUp.get(key) ?? 0) + 1)
    }
  }
}
