import { isDeepStrictEqual } from 'node:util'
import { align } from '../../lib/align.js'
import { isObject } from '../../lib/is.js'
import type { LiveEntry } from '../engine/live-wire.js'
import type { ScriptLine } from '../script.js'

/** One place where the live run differs from the transcript. */
export interface Difference {
  readonly kind: 'changed' | 'missing' | 'extra' | 'timeout' | 'exit'
  readonly connection: number
  /** The transcript line it is about (changed, missing; for timeout the awaited line). */
  readonly line?: number
  /** For extra: the transcript line of the agent message before it (0: before any). */
  readonly afterLine?: number
  /** For timeout and exit: the client line the replay was about to send. */
  readonly atLine?: number
  /** What the message is, e.g. `session/update agent_message_chunk (<session-1>)`. */
  readonly what: string
  /** For changed: each differing place, as a JSON pointer, with both normalized values. */
  readonly fields?: readonly FieldDifference[]
  /** Normalized: the transcript's message (missing) or the agent's (extra). */
  readonly expected?: unknown
  readonly actual?: unknown
  readonly note?: string
}

export interface FieldDifference {
  readonly path: string
  /** Absent when the transcript has nothing there. */
  readonly expected?: unknown
  /** Absent when the agent sent nothing there. */
  readonly actual?: unknown
}

/** Where each live agent message landed in the transcript. */
export interface Placement {
  /** The transcript line it was paired with (equal or changed). */
  readonly line?: number
  /** For an unpaired message: the transcript line before it. */
  readonly afterLine: number
}

export interface CompareInput {
  readonly connection: number
  readonly recordedLines: readonly ScriptLine[]
  readonly recorded: ReadonlyMap<number, unknown>
  readonly live: readonly LiveEntry[]
  /** Compare each session's messages on their own (`--loose-order`), else one ordered sequence. */
  readonly looseOrder: boolean
}

const UNANSWERED = 'the transcript holds no request like it: answered with an error'

interface Item {
  readonly key: string
  readonly text: string
  readonly normalized: unknown
  readonly what: string
  readonly stream: string
}

/** A readable name for a message: its method and update kind, or the request a response answers. */
export function describeMessage(kind: string, normalized: unknown, answers?: string): string {
  const msg = isObject(normalized) ? normalized : {}
  const params = isObject(msg.params) ? msg.params : {}
  const session = typeof params.sessionId === 'string' ? ` (${params.sessionId})` : ''
  if (kind === 'raw') return 'a line that is not JSON'
  if (kind === 'response')
    return `response to ${answers ?? 'an unknown request'} (id ${JSON.stringify(msg.id)})`
  if (kind === 'request') return `request ${String(msg.method)}${session}`
  if (kind === 'notification') {
    const update =
      isObject(params.update) && typeof params.update.sessionUpdate === 'string'
        ? ` ${params.update.sessionUpdate}`
        : ''
    return `${String(msg.method)}${update}${session}`
  }
  return 'a message that is not JSON-RPC'
}

function itemKey(kind: string, normalized: unknown): string {
  const msg = isObject(normalized) ? normalized : {}
  if (kind === 'response') return `response ${JSON.stringify(msg.id)}`
  if (kind === 'request' || kind === 'notification') {
    const params = isObject(msg.params) ? msg.params : {}
    const update = isObject(params.update) ? String(params.update.sessionUpdate) : ''
    return `${kind} ${String(msg.method)} ${update}`
  }
  return kind
}

function streamOf(normalized: unknown, requestSession: string | undefined): string {
  const params = isObject(normalized) && isObject(normalized.params) ? normalized.params : {}
  if (typeof params.sessionId === 'string') return params.sessionId
  return requestSession ?? ''
}

/** Each differing place of two normalized values, as JSON pointers (at most `limit`). */
export function fieldDifferences(expected: unknown, actual: unknown, limit = 20): FieldDifference[] {
  const found: FieldDifference[] = []
  const visit = (a: unknown, b: unknown, path: string) => {
    if (found.length >= limit || isDeepStrictEqual(a, b)) return
    const bothArrays = Array.isArray(a) && Array.isArray(b)
    if ((isObject(a) && isObject(b)) || bothArrays) {
      const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)])
      for (const key of keys) {
        const here = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
        const inA = Object.hasOwn(a as object, key)
        const inB = Object.hasOwn(b as object, key)
        const av = (a as Record<string, unknown>)[key]
        const bv = (b as Record<string, unknown>)[key]
        if (inA && inB) visit(av, bv, here)
        else if (found.length < limit)
          found.push({ path: here, ...(inA && { expected: av }), ...(inB && { actual: bv }) })
      }
      return
    }
    found.push({ path: path === '' ? '/' : path, expected: a, actual: b })
  }
  visit(expected, actual, '')
  return found
}

/**
 * Compares the agent's side of one connection: the transcript's agent messages against the live
 * ones, as one ordered sequence or (`looseOrder`) one sequence per session. Equal messages are
 * anchors; between anchors, messages of the same kind (same response id, same method and update
 * kind) pair up in order as changed, the rest are missing or extra. Returns the differences and
 * where each live agent message landed.
 */
export function compareConnection(input: CompareInput): {
  differences: Difference[]
  placements: Map<LiveEntry, Placement>
} {
  const { connection, recorded, looseOrder } = input
  const recordedOut = input.recordedLines.filter((l) => l.dir === 'out')
  const requestSessionRecorded = new Map<string, string>()
  for (const line of input.recordedLines) {
    if (line.dir === 'in' && line.kind === 'request') {
      const s = streamOf(recorded.get(line.line), undefined)
      if (s !== '') requestSessionRecorded.set(line.idKey as string, s)
    }
  }
  const requestSessionLive = new Map<string, string>()
  const liveOut: LiveEntry[] = []
  for (const entry of input.live) {
    if (entry.dir === 'out') liveOut.push(entry)
    else if (entry.kind === 'request') {
      const s = streamOf(entry.normalized, undefined)
      if (s !== '') requestSessionLive.set(entry.idKey as string, s)
    }
  }
  const toItem = (
    kind: string,
    normalized: unknown,
    answers: string | undefined,
    session: string | undefined,
  ): Item => ({
    key: itemKey(kind, normalized),
    text: JSON.stringify(normalized),
    normalized,
    what: describeMessage(kind, normalized, answers),
    stream: looseOrder ? streamOf(normalized, session) : '',
  })
  const expectedItems = recordedOut.map((line) =>
    toItem(
      line.kind,
      recorded.get(line.line),
      line.answers,
      line.kind === 'response' ? requestSessionRecorded.get(line.idKey as string) : undefined,
    ),
  )
  const actualItems = liveOut.map((entry) =>
    toItem(
      entry.kind,
      entry.normalized,
      entry.answers,
      entry.kind === 'response' ? requestSessionLive.get(entry.idKey as string) : undefined,
    ),
  )
  const streams = new Set([...expectedItems.map((i) => i.stream), ...actualItems.map((i) => i.stream)])
  const differences: { order: number; difference: Difference }[] = []
  const placements = new Map<LiveEntry, Placement>()
  for (const stream of streams) {
    const ai = expectedItems.flatMap((item, i) => (item.stream === stream ? [i] : []))
    const bi = actualItems.flatMap((item, i) => (item.stream === stream ? [i] : []))
    const steps = align(
      ai.map((i) => (expectedItems[i] as Item).text),
      bi.map((i) => (actualItems[i] as Item).text),
    )
    let lastLine = 0
    let gapDeletes: number[] = []
    let gapInserts: { index: number; afterLine: number }[] = []
    const flush = () => {
      const inserts = [...gapInserts]
      for (const a of gapDeletes) {
        const expected = expectedItems[a] as Item
        const line = (recordedOut[a] as ScriptLine).line
        const pair = inserts.findIndex((b) => (actualItems[b.index] as Item).key === expected.key)
        if (pair >= 0) {
          const [b] = inserts.splice(pair, 1) as [{ index: number; afterLine: number }]
          const actual = actualItems[b.index] as Item
          const entry = liveOut[b.index] as LiveEntry
          placements.set(entry, { line, afterLine: line })
          differences.push({
            order: line,
            difference: {
              kind: 'changed',
              connection,
              line,
              what: expected.what,
              fields: fieldDifferences(expected.normalized, actual.normalized),
              ...(entry.answeredWithError && { note: UNANSWERED }),
            },
          })
        } else {
          differences.push({
            order: line,
            difference: {
              kind: 'missing',
              connection,
              line,
              what: expected.what,
              expected: expected.normalized,
            },
          })
        }
      }
      for (const b of inserts) {
        const actual = actualItems[b.index] as Item
        const entry = liveOut[b.index] as LiveEntry
        placements.set(entry, { afterLine: b.afterLine })
        differences.push({
          order: b.afterLine + 0.5,
          difference: {
            kind: 'extra',
            connection,
            afterLine: b.afterLine,
            what: actual.what,
            actual: actual.normalized,
            ...(entry.answeredWithError && { note: UNANSWERED }),
          },
        })
      }
      gapDeletes = []
      gapInserts = []
    }
    for (const step of steps) {
      if (step.op === 'equal') {
        flush()
        const a = ai[step.a] as number
        lastLine = (recordedOut[a] as ScriptLine).line
        placements.set(liveOut[bi[step.b] as number] as LiveEntry, { line: lastLine, afterLine: lastLine })
      } else if (step.op === 'delete') {
        gapDeletes.push(ai[step.a] as number)
        lastLine = (recordedOut[ai[step.a] as number] as ScriptLine).line
      } else gapInserts.push({ index: bi[step.b] as number, afterLine: lastLine })
    }
    flush()
  }
  differences.sort((x, y) => x.order - y.order)
  return { differences: differences.map((d) => d.difference), placements }
}
