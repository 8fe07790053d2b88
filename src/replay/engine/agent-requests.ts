import { isDeepStrictEqual } from 'node:util'
import type { ScriptLine } from '../script.js'

/** The error an agent request gets when the transcript holds no request like it. */
export const UNRECORDED_REQUEST_ERROR = {
  code: -32603,
  message: 'dsh-acp replay: the transcript holds no request like this one',
} as const

/**
 * The agent's requests of one connection paired with the transcript's. A live request pairs with
 * the first unpaired transcript request of its method whose normalized params are equal. The
 * transcript's answer to a paired request is sent with the live request's id; an answer whose turn
 * comes before its request has arrived is held until it does.
 */
export class AgentRequests {
  /** Transcript agent-request line -> its normalized params. */
  private readonly params = new Map<number, unknown>()
  /** Transcript agent-request line -> the id of the live request paired with it. */
  private readonly liveIds = new Map<number, unknown>()
  /** Transcript agent-request line -> its answer line, when the answer's turn came before the request. */
  private readonly held = new Map<number, ScriptLine>()

  /** `recorded`: the transcript's messages normalized, by line. */
  constructor(
    private readonly lines: readonly ScriptLine[],
    recorded: ReadonlyMap<number, unknown>,
  ) {
    for (const line of lines) {
      if (isAgentRequest(line)) {
        this.params.set(line.line, (recorded.get(line.line) as { params?: unknown } | undefined)?.params)
      }
    }
  }

  /** Pairs a live request; the transcript line it was paired with, or undefined when none is like it. */
  pair(method: string | undefined, params: unknown, liveId: unknown): number | undefined {
    const candidate = this.lines.find(
      (line) =>
        isAgentRequest(line) &&
        line.method === method &&
        !this.liveIds.has(line.line) &&
        isDeepStrictEqual(this.params.get(line.line), params),
    )
    if (!candidate) return undefined
    this.liveIds.set(candidate.line, liveId)
    return candidate.line
  }

  /** Whether a live request was paired with the transcript request at `requestLine`. */
  isPaired(requestLine: number): boolean {
    return this.liveIds.has(requestLine)
  }

  /** The id of the live request paired with the transcript request at `requestLine`. */
  liveId(requestLine: number): unknown {
    return this.liveIds.get(requestLine)
  }

  /** Keeps `answer` until a live request is paired with the transcript request at `requestLine`. */
  hold(requestLine: number, answer: ScriptLine): void {
    this.held.set(requestLine, answer)
  }

  /** The held answer to the transcript request at `requestLine`, handed over once. */
  takeHeld(requestLine: number): ScriptLine | undefined {
    const answer = this.held.get(requestLine)
    if (answer) this.held.delete(requestLine)
    return answer
  }
}

function isAgentRequest(line: ScriptLine): boolean {
  return line.dir === 'out' && line.kind === 'request'
}
