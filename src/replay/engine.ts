import { performance } from 'node:perf_hooks'
import { isDeepStrictEqual } from 'node:util'
import type { WireDirection } from '../jsonrpc/index.js'
import { type AgentExit, describeExit } from './agent-exit.js'
import { Expectations } from './expectations.js'
import { type AgentLaunch, type AgentLine, LiveAgent } from './live-agent.js'
import type { Normalizer } from './normalize.js'
import { fillPlaceholders, type Placeholder } from './placeholders.js'
import { classify, type LineKind, type ScriptLine } from './script.js'
import { SessionIds } from './session-ids.js'

/** One message of the live run, both directions, as sent or received, with its normalized form. */
export interface LiveEntry {
  readonly connection: number
  readonly dir: WireDirection
  readonly kind: LineKind
  readonly msg?: unknown
  readonly raw?: string | Buffer
  readonly method?: string
  readonly idKey?: string
  /** For a response: the method of the request it answers. */
  readonly answers?: string
  readonly normalized: unknown
  /** Milliseconds since this connection's agent was started. */
  readonly ms: number
  /** For a client line: the transcript line it was sent from. */
  readonly fromLine?: number
  /** For an agent request no transcript request matched: it was answered with an error. */
  answeredWithError?: boolean
}

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

export interface PlayOptions {
  readonly connection: number
  readonly lines: readonly ScriptLine[]
  readonly launch: AgentLaunch
  readonly timeoutMs: number
  /** The live side's normalizer (shared across connections, fed in wire order). */
  readonly normalizer: Normalizer
  /** Where live entries go, in wire order. */
  readonly live: LiveEntry[]
  /** The transcript's messages normalized, by line (the transcript side's normalizer). */
  readonly recorded: ReadonlyMap<number, unknown>
  /** `--set`: filled into every client message before it is sent. */
  readonly placeholders?: readonly Placeholder[]
}

/** The agent could not be started. */
export class ReplayStartError extends Error {
  override name = 'ReplayStartError'
}

/** The error an agent request gets when the transcript holds no request like it. */
export const UNRECORDED_REQUEST_ERROR = {
  code: -32603,
  message: 'dsh-acp replay: the transcript holds no request like this one',
} as const

/**
 * Plays one connection: starts the agent, sends the transcript's client lines in order, and
 * before each one waits until the agent has sent as many messages of each kind (responses by id,
 * its requests and notifications by method) as the transcript shows before that line. A wait ends
 * without them after `timeoutMs` of silence from the agent: what did not come is given up and the
 * replay goes on, unless a response or request is missing while the agent still owes an answer
 * to a request sent to it: then it hung there, and the replay of this connection stops. The agent's requests are matched to the transcript's by
 * method and normalized params, and answered with the transcript's answer when its turn comes;
 * one the transcript does not hold is answered at once with {@link UNRECORDED_REQUEST_ERROR}.
 * Session ids the transcript used are replaced by the ones the live agent returned, and
 * `placeholders` are filled in (raw lines are sent as they are). The agent is
 * always stopped (EOF, SIGTERM, SIGKILL) before this resolves.
 */
export async function playConnection(options: PlayOptions): Promise<ConnectionResult> {
  const { lines, normalizer, live, timeoutMs, connection } = options
  const placeholders = options.placeholders ?? []
  const started = performance.now()
  const problems: RunProblem[] = []
  const expectations = new Expectations(lines)
  const sessionIds = new SessionIds()
  const recordedResponses = new Map<string, ScriptLine[]>()
  const requestedMethods = new Map<string, string>()
  /** Ids of the client requests sent that the agent has not answered yet. */
  const unanswered = new Set<string>()
  /** Transcript agent-request line -> the live request's id. */
  const matchedRequests = new Map<number, unknown>()
  /** Transcript agent-request line -> its answer line, when the answer's turn came before the request. */
  const heldAnswers = new Map<number, ScriptLine>()
  for (const line of lines) {
    if (line.dir === 'out' && line.kind === 'response') {
      const list = recordedResponses.get(line.idKey as string) ?? []
      list.push(line)
      recordedResponses.set(line.idKey as string, list)
    }
  }
  let wake: (() => void) | undefined
  const now = () => Math.round((performance.now() - started) * 1000) / 1000

  const push = (entry: Omit<LiveEntry, 'normalized' | 'connection' | 'ms'>) => {
    const normalized =
      entry.msg !== undefined
        ? normalizer.normalize(entry.msg, entry.dir, entry.method ?? entry.answers)
        : { raw: Buffer.isBuffer(entry.raw) ? entry.raw.toString('base64') : entry.raw }
    const full: LiveEntry = { ...entry, connection, normalized, ms: now() }
    live.push(full)
    return full
  }

  const sendMessage = (
    msg: unknown,
    fields: { kind: LineKind; method?: string; idKey?: string; answers?: string; fromLine?: number },
  ) => {
    agent.send(JSON.stringify(msg))
    if (fields.kind === 'request') {
      requestedMethods.set(fields.idKey as string, fields.method as string)
      unanswered.add(fields.idKey as string)
    }
    return push({ dir: 'in', msg, ...fields })
  }

  const onAgentRequest = (entry: LiveEntry, msg: Record<string, unknown>) => {
    const params = (entry.normalized as { params?: unknown }).params
    const candidate = lines.find(
      (line) =>
        line.dir === 'out' &&
        line.kind === 'request' &&
        line.method === entry.method &&
        !matchedRequests.has(line.line) &&
        isDeepStrictEqual(recordedParams.get(line.line), params),
    )
    if (!candidate) {
      entry.answeredWithError = true
      sendMessage(
        { jsonrpc: '2.0', id: msg.id, error: UNRECORDED_REQUEST_ERROR },
        { kind: 'response', idKey: entry.idKey as string, answers: entry.method as string },
      )
      return
    }
    matchedRequests.set(candidate.line, msg.id)
    const held = heldAnswers.get(candidate.line)
    if (held) {
      heldAnswers.delete(candidate.line)
      sendAnswer(held)
    }
  }

  const onLine = ({ text, bytes }: AgentLine) => {
    let msg: unknown
    let parsed = bytes === undefined
    if (parsed) {
      try {
        msg = JSON.parse(text)
      } catch {
        parsed = false
      }
    }
    if (!parsed) {
      push({ dir: 'out', kind: 'raw', raw: bytes ?? text })
      expectations.arrive('raw', undefined, undefined)
    } else {
      const { kind, method, idKey } = classify(msg)
      const answers = kind === 'response' ? requestedMethods.get(idKey as string) : undefined
      const entry = push({
        dir: 'out',
        kind,
        msg,
        ...(method !== undefined && { method }),
        ...(idKey !== undefined && { idKey }),
        ...(answers !== undefined && { answers }),
      })
      expectations.arrive(kind, method, idKey)
      if (kind === 'response') {
        unanswered.delete(idKey as string)
        const recorded = recordedResponses.get(idKey as string)?.shift()
        if (recorded) sessionIds.learn(recorded.msg, msg)
      } else if (kind === 'request') onAgentRequest(entry, msg as Record<string, unknown>)
    }
    wake?.()
  }

  const recordedParams = new Map<number, unknown>()
  for (const line of lines) {
    if (line.dir === 'out' && line.kind === 'request') {
      recordedParams.set(
        line.line,
        (options.recorded.get(line.line) as { params?: unknown } | undefined)?.params,
      )
    }
  }

  const agent = new LiveAgent(options.launch, onLine)
  try {
    await agent.started
  } catch (error) {
    throw new ReplayStartError(`cannot start ${options.launch.command}: ${(error as Error).message}`)
  }
  void agent.exited.then(() => wake?.())

  function sendAnswer(line: ScriptLine) {
    const id = matchedRequests.get(line.answersLine as number)
    const msg = { ...(fillPlaceholders(sessionIds.toLive(line.msg), placeholders) as object), id }
    sendMessage(msg, {
      kind: 'response',
      idKey: JSON.stringify(id),
      answers: line.answers as string,
      fromLine: line.line,
    })
  }

  const send = (line: ScriptLine) => {
    if (line.kind === 'raw') {
      agent.send(line.raw as string | Buffer)
      push({ dir: 'in', kind: 'raw', raw: line.raw as string | Buffer, fromLine: line.line })
    } else if (line.kind === 'response' && line.answersLine !== undefined) {
      if (matchedRequests.has(line.answersLine)) sendAnswer(line)
      else heldAnswers.set(line.answersLine, line)
    } else {
      sendMessage(fillPlaceholders(sessionIds.toLive(line.msg), placeholders), {
        kind: line.kind,
        ...(line.method !== undefined && { method: line.method }),
        ...(line.idKey !== undefined && { idKey: line.idKey }),
        fromLine: line.line,
      })
    }
  }

  /** Waits for `expected`; false when the replay of this connection must stop. */
  const waitFor = async (expected: readonly ScriptLine[], atLine: number | undefined): Promise<boolean> => {
    for (;;) {
      const open = expectations.missing(expected)
      if (open.length === 0) return true
      if (agent.exit) {
        problems.push({
          kind: 'exit',
          connection,
          ...(atLine !== undefined && { atLine }),
          message: `the agent exited (${describeExit(agent.exit)}) while the replay waited for line ${open[0]?.line}`,
        })
        return false
      }
      const progress = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs)
        wake = () => {
          clearTimeout(timer)
          resolve(true)
        }
      })
      wake = undefined
      if (progress) continue
      const still = expectations.missing(expected)
      if (still.length === 0) return true
      const first = still[0] as ScriptLine
      // Hung: the agent still owes an answer and says nothing. An agent that answered everything
      // it was asked is idle, and what it did not send is only missing.
      const hung =
        unanswered.size > 0 && still.some((line) => line.kind === 'response' || line.kind === 'request')
      problems.push({
        kind: 'timeout',
        connection,
        ...(atLine !== undefined && { atLine }),
        line: first.line,
        message: `no message from the agent for ${timeoutMs} ms while waiting for line ${first.line}${hung ? '; the agent hung, the replay stopped here' : '; going on without it'}`,
      })
      if (hung) return false
      expectations.giveUp(still)
    }
  }

  let completed = true
  const expected: ScriptLine[] = []
  try {
    for (const line of lines) {
      if (line.dir === 'out') {
        expected.push(line)
        continue
      }
      if (!(await waitFor(expected, line.line))) {
        completed = false
        break
      }
      if (agent.exit) {
        problems.push({
          kind: 'exit',
          connection,
          atLine: line.line,
          message: `the agent exited (${describeExit(agent.exit)}) before line ${line.line} was sent`,
        })
        completed = false
        break
      }
      send(line)
    }
    if (completed) completed = await waitFor(expected, undefined)
  } finally {
    wake = undefined
  }
  const exit = await agent.stop(Math.min(timeoutMs, 5000))
  return { exit, stderr: agent.stderr, problems, completed }
}
