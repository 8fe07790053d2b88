import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, HERMETIC_ENV } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'
import { V2WireAudit } from '../support/v2/v2-schema.js'
import { LineSplitter, WireAudit } from '../support/wire-audit.js'

/** Checks every line the agent writes against the official schema of its protocol version. */
type Audit = Pick<WireAudit, 'record' | 'problems'>

const ID = 'early_e2e'
const TIME = '2026-01-01T00:00:00.000Z'
const { tempDir } = testResources()

function storeWithSession(): string {
  const store = tempDir('dsh-acp-early-load-')
  const lines = [JSON.stringify({ version: 1, id: ID, createdAt: TIME, cwd: PROJECT_DIR })]
  let seq = 0
  const add = (type: string, data: unknown) =>
    lines.push(JSON.stringify({ seq: ++seq, type, time: TIME, data }))
  for (let turn = 1; turn <= 3; turn++) {
    add('turn/start', { turn })
    add('user/message', { turn, content: [{ type: 'text', text: `question ${turn}` }] })
    add('step/start', { turn, step: 1 })
    add('assistant/message', { turn, step: 1, content: `answer ${turn}`.padEnd(20_000, ' lorem') })
    add('step/end', { turn, step: 1 })
    add('turn/end', { turn, reason: 'completed' })
  }
  writeFileSync(join(store, `${ID}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 })
  return store
}

const line = (id: string | number, method: string, params: unknown) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`
const LIST = line('list', 'session/list', {})
const LOAD = { sessionId: ID, cwd: PROJECT_DIR, mcpServers: [] }
const CLIENTS = [
  {
    name: 'ACP v1, session/load',
    initialize: line(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} }),
    load: line('load', 'session/load', LOAD),
    audit: () => new WireAudit(),
  },
  {
    name: 'ACP v2, session/resume from the start',
    initialize: line(0, 'initialize', { protocolVersion: 2, clientCapabilities: {} }),
    load: line('load', 'session/resume', { ...LOAD, replayFrom: { type: 'start' } }),
    audit: () => new V2WireAudit(),
  },
] as const

/**
 * Runs the built server on `store`, writing each of `batches` (whole lines, each batch in one
 * write) once the agent answered the last request of the batch before it; resolves every line it
 * wrote until the answer to the last request, and its stderr, once it exited.
 */
async function session(store: string, audit: Audit, batches: readonly string[]) {
  const child = spawn(process.execPath, [CLI, '--store', store, '--log-level', 'debug'], {
    env: { ...process.env, ...HERMETIC_ENV },
  })
  const out: string[] = []
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let waiting: { id: unknown; resolve: () => void } | undefined
  const splitter = new LineSplitter((next) => {
    audit.record('out', next)
    out.push(next)
    if (waiting && (JSON.parse(next) as { id?: unknown }).id === waiting.id) waiting.resolve()
  })
  child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk))
  for (const batch of batches) {
    const lines = batch.split('\n').filter((l) => l !== '')
    for (const l of lines) audit.record('in', l)
    const last = JSON.parse(lines[lines.length - 1] as string) as { id: unknown }
    const answered = new Promise<void>((resolve) => {
      waiting = { id: last.id, resolve }
    })
    child.stdin.write(batch)
    await answered
  }
  child.stdin.end()
  expect(await exited).toBe(0)
  expect(audit.problems).toEqual([])
  return { out, stderr }
}

describe('a session/load sent right after initialize', () => {
  it.each(CLIENTS)(
    'is answered with the same lines whether its first updates left before the server was built or not: $name',
    async (client) => {
      const store = storeWithSession()
      const early = await session(store, client.audit(), [client.initialize + client.load])
      const built = await session(store, client.audit(), [client.initialize, LIST, client.load])
      expect(early.stderr).toMatch(
        /session\/load "load": the updates through seq 2 were sent before the server was built/,
      )
      expect(built.stderr).not.toMatch(/sent before the server was built/)
      const answerTo = (id: unknown) => (l: string) => (JSON.parse(l) as { id?: unknown }).id !== id
      const loadLines = (out: string[]) => out.filter(answerTo(0)).filter(answerTo('list'))
      const updates = loadLines(early.out).filter((l) => l.includes('"session/update"'))
      expect(updates.length).toBeGreaterThanOrEqual(6)
      expect(loadLines(early.out)).toEqual(loadLines(built.out))
    },
  )
})
