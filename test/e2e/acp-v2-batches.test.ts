import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI } from '../support/agent-process.js'

/** The SDK's v2 schema: the answers inside a batch are checked against it, entry by entry. */
const schema = JSON.parse(
  readFileSync(join('node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v2', 'schema.json'), 'utf8'),
)
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(schema, 'v2')
const errorsOf = (def: string, value: unknown) => {
  const check = ajv.getSchema(`v2#/$defs/${def}`)
  if (!check) throw new Error(`no ${def}`)
  return check(value) ? [] : (check.errors ?? [])
}

type Line = Record<string, any> | Array<Record<string, any>>

const children: Array<{ kill(): void }> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill()
})

/** dist/cli.cjs over stdio, driven by raw lines: `lines` is every line it wrote, parsed. */
function agent() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-batch-'))
  const child = spawn('node', [CLI, '--model', 'echo', '--store', join(dir, 's')], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, HOME: dir },
  })
  children.push(child)
  const lines: Line[] = []
  const waiters: Array<() => void> = []
  let buffer = ''
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)))
      buffer = buffer.slice(i + 1)
      for (const wake of waiters.splice(0)) wake()
    }
  })
  const until = async <T>(found: () => T | undefined): Promise<T> => {
    for (let value = found(); ; value = found()) {
      if (value !== undefined) return value
      await new Promise<void>((wake) => waiters.push(wake))
    }
  }
  const send = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`)
  /** Sends one request on its own line and waits for its answer. */
  const request = async (id: string, method: string, params: unknown) => {
    send({ jsonrpc: '2.0', id, method, params })
    return until(() => lines.find((line) => !Array.isArray(line) && line.id === id) as Record<string, any>)
  }
  /** The lines written after the first `from` lines, up to the answer of a `session/list` sent now. */
  const linesBefore = async (from: number, marker: string) => {
    await request(marker, 'session/list', {})
    return lines.slice(from).filter((line) => Array.isArray(line) || line.id !== marker)
  }
  return { dir, lines, send, until, request, linesBefore }
}

const call = (id: string, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params })
const V2_INIT = { protocolVersion: 2, info: { name: 'batch-test', version: '1' }, capabilities: {} }

describe('JSON-RPC batches on stdio', () => {
  it('v2: one array answers a batch, each entry on its own; lifecycle requests are refused in it', async () => {
    const a = agent()
    expect((await a.request('i', 'initialize', V2_INIT)).result.protocolVersion).toBe(2)
    const { sessionId } = (await a.request('n', 'session/new', { cwd: a.dir, mcpServers: [] })).result
    const before = a.lines.length
    a.send([
      call('list', 'session/list', {}),
      call('title', 'session/set_title', { sessionId, title: 'Batched' }),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } },
      call('prompt', 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }),
      call('new', 'session/new', { cwd: a.dir }),
      call('init', 'initialize', V2_INIT),
      call('nope', '_dsh/nothing_here'),
      { jsonrpc: '2.0', id: 'bad' },
    ])
    const answer = await a.until(() => a.lines.slice(before).find(Array.isArray))
    const by = new Map(answer.map((entry) => [entry.id, entry]))
    expect(answer).toHaveLength(7)
    expect(errorsOf('ListSessionsResponse', by.get('list')?.result)).toEqual([])
    expect(by.get('list')?.result.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(
      sessionId,
    )
    expect(by.get('title')?.result).toMatchObject({ title: 'Batched' })
    for (const id of ['prompt', 'new', 'init']) {
      expect(by.get(id)?.error).toMatchObject({
        code: -32600,
        message: expect.stringContaining('on its own line'),
      })
    }
    expect(by.get('nope')?.error.code).toBe(-32601)
    expect(by.get(null)?.error.code).toBe(-32600)
    const after = await a.linesBefore(before, 'sync')
    const updates = after.filter((line) => !Array.isArray(line) && line.method === 'session/update')
    expect(updates.map((line: any) => line.params.update.sessionUpdate)).not.toContain('state_update')
    const listed = (await a.request('l2', 'session/list', {})).result.sessions
    expect(listed.find((s: { sessionId: string }) => s.sessionId === sessionId)?.title).toBe('Batched')
  })

  it('v2: an empty batch gets one -32600 object; a batch of notifications gets nothing', async () => {
    const a = agent()
    await a.request('i', 'initialize', V2_INIT)
    const before = a.lines.length
    a.send([])
    a.send([{ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'ses_none' } }])
    expect(await a.linesBefore(before, 'sync')).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('at least one') } },
    ])
  })

  it('before initialize and on v1: a batch is one -32600 with id null, and none of it runs', async () => {
    const a = agent()
    a.send([call('early', 'initialize', V2_INIT)])
    const refused = await a.until(() =>
      a.lines.find((line): line is Record<string, any> => !Array.isArray(line) && line.id === null),
    )
    expect(refused.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('batches are not supported'),
    })
    expect((await a.request('i', 'initialize', { protocolVersion: 1 })).result.protocolVersion).toBe(1)
    const before = a.lines.length
    a.send([call('list', 'session/list', {})])
    const after = await a.linesBefore(before, 'sync')
    expect(after).toEqual([{ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) }])
  })
})
