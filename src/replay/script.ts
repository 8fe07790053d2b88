import { closeSync, openSync, readSync } from 'node:fs'
import type { WireDirection } from '../jsonrpc/index.js'
import { isObject } from '../lib/is.js'
import { parseTranscriptLine, type TranscriptEntry, TranscriptFormatError } from '../process/transcript.js'

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

/** Deepest nesting of arrays and objects a transcript line may have (the entry itself counts). */
export const MAX_LINE_NESTING = 512

/**
 * Reads a transcript file into a script, line by line (the file's text is never held whole).
 * Throws `TranscriptFormatError` naming the bad line: one that is not a transcript entry, or that
 * nests deeper than {@link MAX_LINE_NESTING}.
 */
export function readScript(file: string): Script {
  const entries: { entry: TranscriptEntry; line: number }[] = []
  for (const { text, line } of fileLines(file)) {
    if (text.trim().length === 0) continue
    if (nestingOf(text) > MAX_LINE_NESTING)
      throw new TranscriptFormatError(line, `nested more than ${MAX_LINE_NESTING} levels deep`)
    entries.push({ entry: parseTranscriptLine(text, line), line })
  }
  return scriptFromEntries(entries)
}

const CHUNK_BYTES = 1 << 20

/** The lines of a file (UTF-8, split at `\n`), read in chunks. */
function* fileLines(file: string): Generator<{ text: string; line: number }> {
  const fd = openSync(file, 'r')
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    let carry: Buffer[] = []
    let line = 0
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null)
      if (read === 0) break
      let from = 0
      for (;;) {
        const end = chunk.indexOf(10, from)
        if (end === -1 || end >= read) break
        const part = chunk.subarray(from, end)
        const bytes = carry.length === 0 ? part : Buffer.concat([...carry, part])
        carry = []
        line++
        yield { text: bytes.toString('utf8'), line }
        from = end + 1
      }
      if (from < read) carry.push(Buffer.from(chunk.subarray(from, read)))
    }
    if (carry.length > 0) yield { text: Buffer.concat(carry).toString('utf8'), line: line + 1 }
  } finally {
    closeSync(fd)
  }
}

/** How deeply the JSON text nests arrays and objects (brackets inside strings do not count). */
function nestingOf(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 92) i++
      else if (code === 34) inString = false
    } else if (code === 34) inString = true
    else if (code === 91 || code === 123) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (code === 93 || code === 125) depth--
  }
  return deepest
}
