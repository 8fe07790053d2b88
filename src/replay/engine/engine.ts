import { type AgentExit, describeExit } from '../agent-exit.js'
import type { ScriptLine } from '../script.js'
import { Expectations } from './expectations.js'
import { LiveWire, type WireOptions } from './live-wire.js'

/** Something the run itself ran into: an expected message that never came, an agent that died. */
export interface RunProblem {
  readonly kind: 'timeout' | 'exit'
  readonly connection: number
  /** The client line the replay was about to send (or the end of the connection: undefined). */
  readonly atLine?: number
  /** For a timeout: the first expected line that did not arrive. */
  readonly line?: number
  readonly message: string
}

export interface ConnectionResult {
  readonly exit: AgentExit
  readonly stderr: string
  readonly problems: readonly RunProblem[]
  /** False when the replay stopped early (the agent hung or exited). */
  readonly completed: boolean
}

export interface PlayOptions extends WireOptions {
  /** How long a wait for the agent's next message lasts. */
  readonly timeoutMs: number
}

/** The agent could not be started. */
export class ReplayStartError extends Error {
  override name = 'ReplayStartError'
}

/**
 * Plays one connection: starts the agent, sends the transcript's client lines in order, and
 * before each one waits until the agent has sent as many messages of each kind (responses by id,
 * its requests and notifications by method) as the transcript shows before that line. A wait ends
 * without them after `timeoutMs` of silence from the agent: what did not come is given up and the
 * replay goes on, unless a response or request is missing while the agent still owes an answer
 * to a request sent to it: then it hung there, and the replay of this connection stops. The
 * agent's requests are answered from the transcript ({@link LiveWire}). Session ids the
 * transcript used are replaced by the ones the live agent returned, and `placeholders` are filled
 * in (raw lines are sent as they are). Once the agent has started it is always stopped (EOF,
 * SIGTERM, SIGKILL) before this resolves; `ReplayStartError` when it cannot be started.
 */
export async function playConnection(options: PlayOptions): Promise<ConnectionResult> {
  const play = new ConnectionPlay(options)
  await play.started()
  const completed = await play.run()
  return play.stop(completed)
}

/** The turn-taking of one connection's replay: when to send the next client line, when to stop. */
class ConnectionPlay {
  private readonly problems: RunProblem[] = []
  private readonly expectations: Expectations
  private readonly wire: LiveWire
  /** Ends the wait in progress early: the agent sent a line or exited. */
  private wake: (() => void) | undefined

  constructor(private readonly options: PlayOptions) {
    this.expectations = new Expectations(options.lines)
    this.wire = new LiveWire(options, this.expectations, () => this.wake?.())
  }

  /** Resolves once the agent process runs; `ReplayStartError` when it cannot be started. */
  async started(): Promise<void> {
    const { agent } = this.wire
    try {
      await agent.started
    } catch (error) {
      throw new ReplayStartError(`cannot start ${this.options.launch.command}: ${(error as Error).message}`)
    }
    void agent.exited.then(() => this.wake?.())
  }

  /** Sends every client line in its turn; false when the replay stopped early. */
  async run(): Promise<boolean> {
    const expected: ScriptLine[] = []
    try {
      for (const line of this.options.lines) {
        if (line.dir === 'out') {
          expected.push(line)
          continue
        }
        if (!(await this.waitFor(expected, line.line))) return false
        // Every one of them arrived or was given up, for good: later waits need not look again.
        expected.length = 0
        const exit = this.wire.agent.exit
        if (exit) {
          this.problem(
            'exit',
            line.line,
            `the agent exited (${describeExit(exit)}) before line ${line.line} was sent`,
          )
          return false
        }
        this.wire.send(line)
      }
      return await this.waitFor(expected, undefined)
    } finally {
      this.wake = undefined
    }
  }

  /** Stops the agent and reports the run. */
  async stop(completed: boolean): Promise<ConnectionResult> {
    const { agent } = this.wire
    const exit = await agent.stop(Math.min(this.options.timeoutMs, 5000))
    return { exit, stderr: agent.stderr, problems: this.problems, completed }
  }

  /** Waits until the agent has sent `expected`; false when the replay of this connection must stop. */
  private async waitFor(expected: readonly ScriptLine[], atLine: number | undefined): Promise<boolean> {
    for (;;) {
      const open = this.expectations.missing(expected)
      if (open.length === 0) return true
      const exit = this.wire.agent.exit
      if (exit) {
        const waited = open[0]?.line
        this.problem(
          'exit',
          atLine,
          `the agent exited (${describeExit(exit)}) while the replay waited for line ${waited}`,
        )
        return false
      }
      if (await this.agentSpeaks()) continue
      const still = this.expectations.missing(expected)
      if (still.length === 0) return true
      if (this.hungOn(still, atLine)) return false
      this.expectations.giveUp(still)
    }
  }

  /** True when the agent sends a line or exits, false after `timeoutMs` of silence. */
  private async agentSpeaks(): Promise<boolean> {
    const spoke = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.options.timeoutMs)
      this.wake = () => {
        clearTimeout(timer)
        resolve(true)
      }
    })
    this.wake = undefined
    return spoke
  }

  /**
   * Reports the silence while `still` was missing. Hung (true): the agent still owes an answer and
   * says nothing. An agent that answered everything it was asked is idle, and what it did not send
   * is only missing (false).
   */
  private hungOn(still: readonly ScriptLine[], atLine: number | undefined): boolean {
    const first = still[0] as ScriptLine
    const hung =
      this.wire.owesAnswer() && still.some((line) => line.kind === 'response' || line.kind === 'request')
    const outcome = hung ? '; the agent hung, the replay stopped here' : '; going on without it'
    const silence = `no message from the agent for ${this.options.timeoutMs} ms`
    this.problem('timeout', atLine, `${silence} while waiting for line ${first.line}${outcome}`, first.line)
    return hung
  }

  private problem(
    kind: RunProblem['kind'],
    atLine: number | undefined,
    message: string,
    line?: number,
  ): void {
    this.problems.push({
      kind,
      connection: this.options.connection,
      ...(atLine !== undefined && { atLine }),
      ...(line !== undefined && { line }),
      message,
    })
  }
}
