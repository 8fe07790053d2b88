import { readFileSync } from 'node:fs'
import type { WireDirection } from '../jsonrpc/index.js'
import { isObject } from '../lib/is.js'
import { parseTranscriptLine, type TranscriptEntry } from '../process/transcript.js'

/** What a transcript line is, read from its message's shape (JSON-RPC 2.0). */
export type LineKind = 'request' | 'notification' | 'response' | 'raw' | 'other'

/** One transcript line, classified, with where it is. */
export interface ScriptLine {
  /** 1-based line number in the transcript file. */
  readonly line: number
  readonly dir: WireDirection
  readonly kind: LineKind
  /** The parsed message (absent for raw lines). */
  readonly msg?: unknown
  /** The text to send for a raw line (`raw`), or its bytes (`rawBase64`). */
  readonly raw?: string | Buffer
  readonly method?: string
  /** The JSON-RPC id as JSON text (`1`, `"a"`, `null`), for requests and responses. */
  readonly idKey?: string
  /** For a response: the method of the request it answers (the latest earlier request with its id, from the other side). */
  readonly answers?: string
  /** For a response: the line of the request it answers. */
  readonly answersLine?: number
  readonly ms?: number
}

/**
 * A transcript as a script to replay: its lines, split into connections. A connection starts at
 * each client `initialize` request after the first line (ACP sends it once per connection), so an
 * appended recording or a restart is replayed against a fresh agent process.
 */
export interface Script {
  readonly lines: readonly ScriptLine[]
  readonly connections: readonly (readonly ScriptLine[])[]
}

/** Classifies one parsed message. */
export function classify(msg: unknown): { kind: LineKind; method?: string; idKey?: string } {
  if (!isObject(msg)) return { kind: 'other' }
  const hasId = Object.hasOwn(msg, 'id')
  const idKey = hasId ? JSON.stringify(msg.id ?? null) : undefined
  if (typeof msg.method === 'string') {
    return hasId
      ? { kind: 'request', method: msg.method, idKey: idKey as string }
      : { kind: 'notification', method: msg.method }
  }
  if (hasId && (Object.hasOwn(msg, 'result') || Object.hasOwn(msg, 'error')))
    return { kind: 'response', idKey: idKey as string }
  return { kind: 'other' }
}

/** Builds the script from parsed entries (line numbers are the entries' positions unless given). */
export function scriptFromEntries(entries: readonly { entry: TranscriptEntry; line: number }[]): Script {
  const lines: ScriptLine[] = []
  const requests = new Map<string, ScriptLine>()
  for (const { entry, line } of entries) {
    const ms = entry.ms !== undefined ? { ms: entry.ms } : {}
    if ('raw' in entry || 'rawBase64' in entry) {
      const raw = 'raw' in entry ? entry.raw : Buffer.from(entry.rawBase64, 'base64')
      lines.push({ line, dir: entry.dir, kind: 'raw', raw, ...ms })
      continue
    }
    const { kind, method, idKey } = classify(entry.msg)
    const base = { line, dir: entry.dir, kind, msg: entry.msg, ...ms }
    if (kind === 'request') {
      const request: ScriptLine = { ...base, method: method as string, idKey: idKey as string }
      requests.set(`${entry.dir}:${idKey}`, request)
      lines.push(request)
    } else if (kind === 'response') {
      const request = requests.get(`${entry.dir === 'in' ? 'out' : 'in'}:${idKey}`)
      lines.push({
        ...base,
        idKey: idKey as string,
        ...(request && { answers: request.method as string, answersLine: request.line }),
      })
    } else lines.push({ ...base, ...(method !== undefined && { method }) })
  }
  const connections: ScriptLine[][] = []
  for (const line of lines) {
    const starts = line.dir === 'in' && line.kind === 'request' && line.method === 'initialize'
    if (connections.length === 0 || (starts && connections.at(-1)?.length !== 0)) connections.push([])
    connections.at(-1)?.push(line)
  }
  return { lines, connections }
}

/** Reads a transcript file into a script. Throws `TranscriptFormatError` naming the bad line. */
export function readScript(file: string): Script {
  const text = readFileSync(file, 'utf8')
  const entries = text
    .split('\n')
    .map((content, index) => ({ content, line: index + 1 }))
    .filter(({ content }) => content.trim().length > 0)
    .map(({ content, line }) => ({ entry: parseTranscriptLine(content, line), line }))
  return scriptFromEntries(entries)
}
