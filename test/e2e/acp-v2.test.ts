import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'

/** The SDK's v2 schema: every line the agent writes must be one of its agent outputs. */
const schema = JSON.parse(
  readFileSync(join('node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v2', 'schema.json'), 'utf8'),
)
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(schema, 'v2')
const valid = (def: string, value: unknown) => {
  const check = ajv.getSchema(`v2#/$defs/${def}`)
  if (!check) throw new Error(`no ${def}`)
  return check(value) ? [] : (check.errors ?? [])
}

/** Drives dist/cli.cjs over stdio as a v2 client; `lines` is every message it wrote. */
function agent(turns: unknown, args: readonly string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-v2-'))
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  const child = spawn(
    'node',
    ['dist/cli.cjs', '--model', `script:${join(dir, 'model.json')}`, '--store', join(dir, 's'), ...args],
    {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, HOME: dir },
    },
  )
  const lines: Record<string, unknown>[] = []
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
  let id = 0
  const until = async (found: () => unknown) => {
    while (!found()) await new Promise<void>((wake) => waiters.push(wake))
    return found()
  }
  const request = async (method: string, params: unknown) => {
    const n = ++id
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`)
    return (await until(() => lines.find((line) => line.id === n))) as Record<string, any>
  }
  return { dir, lines, request, until, end: () => child.stdin.end() }
}

const updates = (lines: Record<string, any>[]) =>
  lines.filter((l) => l.method === 'session/update').map((l) => l.params.update)

describe('ACP v2 over stdio', () => {
  it('initialize, new, a prompt turn (ack, user_message, running, chunks, idle) and a resume with replay', async () => {
    const a = agent([[[{ text: 'Hello from v2.' }]]])
    const init = await a.request('initialize', {
      protocolVersion: 2,
      info: { name: 't', version: '1' },
      capabilities: {},
    })
    expect(init.result.protocolVersion).toBe(2)
    expect(valid('InitializeResponse', init.result)).toEqual([])
    expect(init.result.capabilities.session).toBeDefined()
    const created = await a.request('session/new', { cwd: a.dir })
    expect(valid('NewSessionResponse', created.result)).toEqual([])
    const sessionId = created.result.sessionId
    const prompted = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    expect(valid('PromptResponse', prompted.result)).toEqual([])
    await a.until(() => updates(a.lines).some((u) => u.state === 'idle'))
    const live = updates(a.lines)
    const user = live.find((u) => u.sessionUpdate === 'user_message')
    expect(user.messageId).toBe(prompted.result.messageId)
    const states = live.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)
    expect(states).toEqual(['running', 'idle'])
    expect(live.at(-1)).toMatchObject({ state: 'idle', stopReason: 'end_turn' })
    expect(live.find((u) => u.sessionUpdate === 'agent_message_chunk')).toMatchObject({
      content: { text: 'Hello from v2.' },
    })
    const replayFrom = a.lines.length
    const resumed = await a.request('session/resume', {
      sessionId,
      cwd: a.dir,
      replayFrom: { type: 'start' },
    })
    expect(valid('ResumeSessionResponse', resumed.result)).toEqual([])
    // A replay sends each message whole (v2's upserts).
    expect(updates(a.lines.slice(replayFrom)).map((u) => u.sessionUpdate)).toContain('agent_message')
    const load = await a.request('session/load', { sessionId, cwd: a.dir, mcpServers: [] })
    expect(load.error.code).toBe(-32601)
    for (const line of a.lines.filter((l) => l.method === 'session/update'))
      expect(valid('UpdateSessionNotification', line.params)).toEqual([])
    a.end()
  })

  it('a v1 client still gets v1', async () => {
    const a = agent([])
    const init = await a.request('initialize', { protocolVersion: 1 })
    expect(init.result.protocolVersion).toBe(1)
    expect(init.result.agentCapabilities).toBeDefined()
    a.end()
  })

  it('--protocol v2 serves v2 alone: a v1 first initialize gets -32022, then a v2 one is answered', async () => {
    const a = agent([], ['--protocol', 'v2'])
    const refused = await a.request('initialize', { protocolVersion: 1 })
    expect(refused.error).toMatchObject({ code: -32022, data: { requested: 1, supported: [2] } })
    const init = await a.request('initialize', { protocolVersion: 2, info: { name: 't', version: '1' } })
    expect(init.result.protocolVersion).toBe(2)
    a.end()
  })

  it('--protocol v1 serves v1 alone: a v2 client is answered in v1', async () => {
    const a = agent([], ['--protocol', 'v1'])
    const init = await a.request('initialize', { protocolVersion: 2, info: { name: 't', version: '1' } })
    expect(init.result).toMatchObject({ protocolVersion: 1, agentCapabilities: {} })
    a.end()
  })
})
