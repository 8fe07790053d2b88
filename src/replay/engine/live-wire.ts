import { performance } from 'node:perf_hooks'
import type { WireDirection } from '../../jsonrpc/index.js'
import type { Normalizer } from '../compare/normalize.js'
import { fillPlaceholders, type Placeholder } from '../compare/placeholders.js'
import { classify, type LineKind, type ScriptLine } from '../script.js'
import { AgentRequests, UNRECORDED_REQUEST_ERROR } from './agent-requests.js'
import type { Expectations } from './expectations.js'
import { type AgentLaunch, type AgentLine, LiveAgent } from './live-agent.js'
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

/** What the live side of one connection is built from. */
export interface WireOptions {
  readonly connection: number
  readonly lines: readonly ScriptLine[]
  readonly launch: AgentLaunch
  /** The live side's normalizer (shared across connections, fed in wire order). */
  readonly normalizer: Normalizer
  /** Where live entries go, in wire order. */
  readonly live: LiveEntry[]
  /** The transcript's messages normalized, by line (the transcript side's normalizer). */
  readonly recorded: ReadonlyMap<number, unknown>
  /** `--set`: filled into every client message before it is sent. */
  readonly placeholders?: readonly Placeholder[]
}

type SentFields = { kind: LineKind; method?: string; idKey?: string; answers?: string; fromLine?: number }

/**
 * The live side of one connection: the agent process, every message sent to it and received from
 * it (logged to `live` in wire order, normalized), and what it is owed. Each message the agent
 * sends counts in `expectations`; a response teaches the live session ids, a request is answered
 * from the transcript ({@link AgentRequests}) or at once with {@link UNRECORDED_REQUEST_ERROR}.
 * `onActivity` runs after each line the agent sent has been handled.
 */
export class LiveWire {
  readonly agent: LiveAgent
  private readonly startedAt = performance.now()
  private readonly requests: AgentRequests
  private readonly sessionIds = new SessionIds()
  /** The transcript's agent responses by id, in order: each live response is paired with the next. */
  private readonly recordedResponses: Map<string, ScriptLine[]>
  /** The method of each client request sent, by id. */
  private readonly requestedMethods = new Map<string, string>()
  /** Ids of the client requests sent that the agent has not answered yet. */
  private readonly unanswered = new Set<string>()

  constructor(
    private readonly options: WireOptions,
    private readonly expectations: Expectations,
    private readonly onActivity: () => void,
  ) {
    this.requests = new AgentRequests(options.lines, options.recorded)
    this.recordedResponses = responsesById(options.lines)
    this.agent = new LiveAgent(options.launch, (line) => this.onLine(line))
  }

  /** Whether a client request sent is still unanswered. */
  owesAnswer(): boolean {
    return this.unanswered.size > 0
  }

  /** Sends a client line of the transcript; an answer to an agent request waits for that request. */
  send(line: ScriptLine): void {
    if (line.kind === 'raw') {
      this.agent.send(line.raw as string | Buffer)
      this.log({ dir: 'in', kind: 'raw', raw: line.raw as string | Buffer, fromLine: line.line })
    } else if (line.kind === 'response' && line.answersLine !== undefined) {
      if (this.requests.isPaired(line.answersLine)) this.sendAnswer(line)
      else this.requests.hold(line.answersLine, line)
    } else {
      this.sendMessage(this.toLive(line.msg), {
        kind: line.kind,
        ...(line.method !== undefined && { method: line.method }),
        ...(line.idKey !== undefined && { idKey: line.idKey }),
        fromLine: line.line,
      })
    }
  }

  private onLine({ text, bytes }: AgentLine): void {
    const parsed = bytes === undefined ? parseJson(text) : undefined
    if (parsed) this.onMessage(parsed.value)
    else {
      this.log({ dir: 'out', kind: 'raw', raw: bytes ?? text })
      this.expectations.arrive('raw', undefined, undefined)
    }
    this.onActivity()
  }

  private onMessage(msg: unknown): void {
    const { kind, method, idKey } = classify(msg)
    const answers = kind === 'response' ? this.requestedMethods.get(idKey as string) : undefined
    const entry = this.log({
      dir: 'out',
      kind,
      msg,
      ...(method !== undefined && { method }),
      ...(idKey !== undefined && { idKey }),
      ...(answers !== undefined && { answers }),
    })
    this.expectations.arrive(kind, method, idKey)
    if (kind === 'response') {
      this.unanswered.delete(idKey as string)
      const recorded = this.recordedResponses.get(idKey as string)?.shift()
      if (recorded) this.sessionIds.learn(recorded.msg, msg)
    } else if (kind === 'request') this.onAgentRequest(entry, msg as Record<string, unknown>)
  }

  private onAgentRequest(entry: LiveEntry, msg: Record<string, unknown>): void {
    const params = (entry.normalized as { params?: unknown }).params
    const requestLine = this.requests.pair(entry.method, params, msg.id)
    if (requestLine === undefined) {
      entry.answeredWithError = true
      this.sendMessage(
        { jsonrpc: '2.0', id: msg.id, error: UNRECORDED_REQUEST_ERROR },
        { kind: 'response', idKey: entry.idKey as string, answers: entry.method as string },
      )
      return
    }
    const held = this.requests.takeHeld(requestLine)
    if (held) this.sendAnswer(held)
  }

  /** Sends the transcript's answer to an agent request, with the paired live request's id. */
  private sendAnswer(line: ScriptLine): void {
    const id = this.requests.liveId(line.answersLine as number)
    this.sendMessage(
      { ...(this.toLive(line.msg) as object), id },
      { kind: 'response', idKey: JSON.stringify(id), answers: line.answers as string, fromLine: line.line },
    )
  }

  private sendMessage(msg: unknown, fields: SentFields): void {
    this.agent.send(JSON.stringify(msg))
    if (fields.kind === 'request') {
      this.requestedMethods.set(fields.idKey as string, fields.method as string)
      this.unanswered.add(fields.idKey as string)
    }
    this.log({ dir: 'in', msg, ...fields })
  }

  /** A transcript message with the live session ids and the `--set` placeholders filled in. */
  private toLive(msg: unknown): unknown {
    return fillPlaceholders(this.sessionIds.toLive(msg), this.options.placeholders ?? [])
  }

  /** Appends one message of the live run, normalized in wire order, to `live`. */
  private log(entry: Omit<LiveEntry, 'normalized' | 'connection' | 'ms'>): LiveEntry {
    const { normalizer, connection } = this.options
    const normalized =
      entry.msg !== undefined
        ? normalizer.normalize(entry.msg, entry.dir, entry.method ?? entry.answers)
        : { raw: Buffer.isBuffer(entry.raw) ? entry.raw.toString('base64') : entry.raw }
    const ms = Math.round((performance.now() - this.startedAt) * 1000) / 1000
    const full: LiveEntry = { ...entry, connection, normalized, ms }
    this.options.live.push(full)
    return full
  }
}

/** The transcript's agent responses of one connection by id, in transcript order. */
function responsesById(lines: readonly ScriptLine[]): Map<string, ScriptLine[]> {
  const byId = new Map<string, ScriptLine[]>()
  for (const line of lines) {
    if (line.dir === 'out' && line.kind === 'response') {
      const list = byId.get(line.idKey as string) ?? []
      list.push(line)
      byId.set(line.idKey as string, list)
    }
  }
  return byId
}

/** The JSON value of `text`, or undefined when it is not JSON. */
function parseJson(text: string): { readonly value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}
