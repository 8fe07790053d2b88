import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { WireDirection } from '../../jsonrpc/index.js'
import { isObject } from '../../lib/is.js'
import type { CompiledRule } from './rules.js'

/**
 * Normalization before comparing: what may differ between two runs of a deterministic agent.
 * One `Normalizer` per side (the transcript, the live run) is fed that side's messages in wire
 * order, both directions, so "first appearance" means the same on both sides. In order:
 *
 * 1. The user's rules (`--rules FILE`, see `rules.ts`), in file order.
 * 2. Session ids: a string under a `sessionId` key, the first time it is seen, becomes
 *    `<session-1>`, `<session-2>`, ...; from then on that exact string is replaced wherever it
 *    appears as a whole value (e.g. `_meta.dsh.parentSession`), and inside longer strings
 *    (paths, messages) when it is at least 8 characters long.
 * 3. Ids of the agent's own requests (agent to client) and of the client's answers to them become
 *    `<agent-request-id>`: the replay matches those requests by method and content, not by id.
 *    The client's request ids are replayed as recorded, so they are compared as they are.
 * 4. Timestamps: an ISO 8601 date-time becomes `<time>`: a whole string value
 *    (`2026-01-01T00:00Z`, `2026-01-01 00:00:00.5+02:00`), or inside a longer string one with `T`
 *    and seconds (`... at 2026-01-01T00:00:00.123Z`).
 * 5. Temp paths: inside strings, the system temp directory followed by one path segment (what
 *    `mkdtemp` makes, e.g. `/tmp/run-x1Yz`) becomes `<tmp>`.
 * 6. Versions: `initialize`'s `result.agentInfo.version` and `params.clientInfo.version` (v2:
 *    `result.info.version` and `params.info.version`) become `<version>`.
 *
 * Nothing else is touched; anything else that differs is reported.
 */
export class Normalizer {
  private readonly sessions = new Map<string, string>()
  private readonly agentRequests = new Set<string>()

  constructor(private readonly rules: readonly CompiledRule[] = []) {}

  /**
   * The normalized copy of one message. `method` is the message's method, or for a response the
   * method of the request it answers.
   */
  normalize(message: unknown, dir: WireDirection, method?: string): unknown {
    let value = structuredClone(message)
    for (const rule of this.rules) value = rule.apply(value, method, dir)
    this.learnSessionIds(value)
    value = this.renameStrings(value)
    value = this.renameAgentRequestId(value, dir)
    if (method === 'initialize') normalizeInitializeVersions(value)
    return value
  }

  private learnSessionIds(value: unknown): void {
    walk(value, (key, child) => {
      if (
        key === 'sessionId' &&
        typeof child === 'string' &&
        !this.sessions.has(child) &&
        !isPlaceholder(child)
      ) {
        this.sessions.set(child, `<session-${this.sessions.size + 1}>`)
      }
    })
  }

  private renameStrings(value: unknown): unknown {
    const long = [...this.sessions.entries()]
      .filter(([id]) => id.length >= 8)
      .sort((a, b) => b[0].length - a[0].length)
    return mapStrings(value, (text) => {
      const whole = this.sessions.get(text)
      if (whole !== undefined) return whole
      if (ISO_TIME.test(text)) return '<time>'
      let result = text.includes('T') ? text.replace(ISO_TIME_INSIDE, '<time>') : text
      for (const [id, name] of long) if (result.includes(id)) result = result.replaceAll(id, name)
      for (const dir of TEMP_DIRS)
        if (result.includes(dir)) result = result.replace(tempPathPattern(dir), '<tmp>')
      return result
    })
  }

  private renameAgentRequestId(value: unknown, dir: WireDirection): unknown {
    if (!isObject(value) || !Object.hasOwn(value, 'id')) return value
    const isRequest = typeof value.method === 'string'
    const fromAgent = dir === 'out' && isRequest
    const answersAgent = dir === 'in' && !isRequest
    if (!fromAgent && !answersAgent) return value
    const key = JSON.stringify(value.id)
    if (fromAgent) this.agentRequests.add(key)
    else if (!this.agentRequests.has(key)) return value
    value.id = '<agent-request-id>'
    return value
  }
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/

const ISO_TIME_INSIDE = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?\b/g

const PLACEHOLDER = /^<[a-z-]+(-\d+)?>$/
const isPlaceholder = (text: string) => PLACEHOLDER.test(text)

const TEMP_DIRS: readonly string[] = (() => {
  const dirs = new Set<string>([tmpdir()])
  try {
    dirs.add(realpathSync(tmpdir()))
  } catch {}
  return [...dirs].filter((d) => d.length > 1).sort((a, b) => b.length - a.length)
})()

const tempPathPattern = (dir: string) =>
  new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^/\\s"'<>]+`, 'g')

/**
 * Rule 6 alone, in place: an `initialize` message's `agentInfo.version` / `clientInfo.version`
 * (v2: `info.version` on either side) become `<version>`.
 */
export function normalizeInitializeVersions(value: unknown): void {
  if (!isObject(value)) return
  for (const [part, field] of [
    ['result', 'agentInfo'],
    ['params', 'clientInfo'],
    ['result', 'info'],
    ['params', 'info'],
  ] as const) {
    const info = (value[part] as Record<string, unknown> | undefined)?.[field]
    if (isObject(info) && typeof info.version === 'string') info.version = '<version>'
  }
}

function walk(value: unknown, visit: (key: string, child: unknown) => void): void {
  if (Array.isArray(value)) for (const item of value) walk(item, visit)
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      visit(key, child)
      walk(child, visit)
    }
  }
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map))
  if (isObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) out[key] = mapStrings(child, map)
    return out
  }
  return value
}
