import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readScript } from '../../src/replay/script.js'
import { SNAPSHOT_ROOT } from './snapshot-scenario.js'

/** One line of a stored transcript, with where it is. */
export interface SnapshotLine {
  readonly scenario: string
  /** 1-based line number in `transcript.jsonl`. */
  readonly line: number
  readonly dir: 'in' | 'out'
  readonly msg: Record<string, unknown>
  /** For a response: the method of the request it answers (the latest request with its id). */
  readonly answers?: string
}

/**
 * Every line of every `test/snapshots/<scenario>/transcript.jsonl`, scenarios in name order, read
 * by the replay engine's transcript reader (a raw line appears as `msg: {raw}`).
 */
export function readSnapshotTranscripts(): SnapshotLine[] {
  const lines: SnapshotLine[] = []
  for (const scenario of readdirSync(SNAPSHOT_ROOT).sort()) {
    for (const line of readScript(join(SNAPSHOT_ROOT, scenario, 'transcript.jsonl')).lines) {
      const msg = (line.msg !== undefined ? line.msg : { raw: String(line.raw) }) as Record<string, unknown>
      lines.push({
        scenario,
        line: line.line,
        dir: line.dir,
        msg,
        ...(line.answers !== undefined && { answers: line.answers }),
      })
    }
  }
  return lines
}

/** Every session file a snapshot scenario left in its store: scenario, file name and its lines. */
export function readSnapshotStores(): { scenario: string; file: string; lines: unknown[] }[] {
  const files: { scenario: string; file: string; lines: unknown[] }[] = []
  for (const scenario of readdirSync(SNAPSHOT_ROOT).sort()) {
    const storeDir = join(SNAPSHOT_ROOT, scenario, 'store')
    let names: string[] = []
    try {
      names = readdirSync(storeDir).sort()
    } catch {
      continue
    }
    for (const file of names) {
      const text = readFileSync(join(storeDir, file), 'utf8')
      const lines = text
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as unknown)
      files.push({ scenario, file, lines })
    }
  }
  return files
}

/** The `$defs` of `schemas/acp-meta.schema.json`, one per place `_meta.dsh` may appear. */
export type DshMetaDef =
  | 'sessionUpdate'
  | 'promptResult'
  | 'forkParams'
  | 'forkResult'
  | 'sessionListEntry'
  | 'toolCallSubagent'
  | 'userMessageSteered'
  | 'sessionInfoShared'
  | 'noticeResync'
  | 'permissionSubagent'
  | 'authAccount'

export interface DshMetaSite {
  /** The schema definition for this place, or undefined when `_meta.dsh` should not be there. */
  readonly def: DshMetaDef | undefined
  /** Where in the message, e.g. `result.sessions.0._meta.dsh`. */
  readonly path: string
  readonly value: unknown
}

const SITES: readonly { kind: string; method: string; path: RegExp; def: DshMetaDef }[] = [
  { kind: 'notification', method: 'session/update', path: /^params$/, def: 'sessionUpdate' },
  { kind: 'notification', method: 'session/update', path: /^params\.update$/, def: 'toolCallSubagent' },
  {
    kind: 'request',
    method: 'session/request_permission',
    path: /^params\.toolCall$/,
    def: 'permissionSubagent',
  },
  { kind: 'request', method: 'session/fork', path: /^params$/, def: 'forkParams' },
  { kind: 'response', method: 'session/prompt', path: /^result$/, def: 'promptResult' },
  { kind: 'response', method: 'session/fork', path: /^result$/, def: 'forkResult' },
  { kind: 'response', method: 'session/list', path: /^result\.sessions\.\d+$/, def: 'sessionListEntry' },
  { kind: 'response', method: 'auth/status', path: /^result\.accounts\.\d+$/, def: 'authAccount' },
  { kind: 'notification', method: 'auth/status_update', path: /^params\.accounts\.\d+$/, def: 'authAccount' },
]

/** The definition for `params.update._meta.dsh`, by the kind of update it is on. */
function updateDef(update: object): DshMetaDef {
  const kind = (update as { sessionUpdate?: unknown }).sessionUpdate
  if (kind === 'user_message_chunk') return 'userMessageSteered'
  if (kind === 'session_info_update') return 'sessionInfoShared'
  // A client without notices gets the resync notice as an agent message.
  if (kind === 'notice' || kind === 'agent_message_chunk') return 'noticeResync'
  return 'toolCallSubagent'
}

/** Every `_meta.dsh` object in a transcript line, with the schema definition for where it is. */
export function dshMetaSites(line: SnapshotLine): DshMetaSite[] {
  const { msg } = line
  const kind =
    typeof msg.method !== 'string' ? 'response' : Object.hasOwn(msg, 'id') ? 'request' : 'notification'
  const method = kind === 'response' ? line.answers : (msg.method as string)
  const found: DshMetaSite[] = []
  const walk = (value: unknown, path: string[]) => {
    if (typeof value !== 'object' || value === null) return
    for (const [key, child] of Object.entries(value)) {
      if (key === '_meta' && typeof child === 'object' && child !== null && 'dsh' in child) {
        const owner = path.join('.')
        const site = SITES.find((s) => s.kind === kind && s.method === method && s.path.test(owner))
        const def = site?.def === 'toolCallSubagent' ? updateDef(value) : site?.def
        found.push({ def, path: `${owner}._meta.dsh`, value: (child as { dsh: unknown }).dsh })
      }
      walk(child, [...path, key])
    }
  }
  walk(msg, [])
  return found
}
