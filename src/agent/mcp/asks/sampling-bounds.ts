/** Sampling requests one server may make in one turn, unless the configuration says otherwise. */
export const DEFAULT_SAMPLING_PER_TURN = 10

/** Whose turn a sampling request is counted against. */
export interface SamplingTurn {
  readonly sessionId: string
  readonly turn: number
}

/**
 * How much one MCP server may ask of the model: at most one sampling question open at a time (a
 * second request while one waits for the user is refused), and at most `perTurn` sampling requests
 * per turn. The first request over the budget calls `exhausted` (to tell the user) once per turn;
 * that one and every later one of the turn is refused.
 */
export class SamplingBounds {
  private turnKey: string | undefined
  private used = 0
  private asking = false

  constructor(
    readonly perTurn: number,
    private readonly exhausted: () => void,
  ) {}

  /** Counts a request of `turn`; the reason it is refused, or undefined when it may go on. */
  take(turn: SamplingTurn): string | undefined {
    const key = `${turn.sessionId}\n${turn.turn}`
    if (key !== this.turnKey) {
      this.turnKey = key
      this.used = 0
    }
    this.used++
    if (this.used <= this.perTurn) return undefined
    if (this.used === this.perTurn + 1) this.exhausted()
    return `the server made more than ${this.perTurn} sampling requests in this turn`
  }

  /** Runs `ask` (a question to the user) unless another of this server's is open; undefined then. */
  async question<T>(ask: () => Promise<T>): Promise<{ readonly answer: T } | undefined> {
    if (this.asking) return undefined
    this.asking = true
    try {
      return { answer: await ask() }
    } finally {
      this.asking = false
    }
  }
}
