import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AnyMessage } from '@agentclientprotocol/sdk'
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client'
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { RemoteServer } from '../support/remote-server.js'

/**
 * ACP v2 over `serve --listen`: a client that initializes with protocol version 2 through the
 * SDK's HTTP or WebSocket transport (the SDK's v2 client does not take a transport stream, so the
 * messages are written as the v2 schema has them) gets the v2 lifecycle, every message valid
 * against the SDK's v2 schema.
 */
const schema = JSON.parse(
  readFileSync(join('node_modules', '@agentclientprotocol', 'sdk', 'schema', 'v2', 'schema.json'), 'utf8'),
)
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(schema, 'v2')
const problems = (def: string, value: unknown) => {
  const check = ajv.getSchema(`v2#/$defs/${def}`)
  if (!check) throw new Error(`no ${def}`)
  return check(value) ? [] : (check.errors ?? [])
}

let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

// biome-ignore lint/suspicious/noExplicitAny: the v2 wire read loosely; each message is checked against the v2 schema
type Message = Record<string, any>

/** A v2 client over the SDK's HTTP or WebSocket transport, writing messages as the v2 schema has them. */
function v2Client(remote: RemoteServer, kind: 'http' | 'ws') {
  const headers = { Authorization: `Bearer ${remote.token}` }
  const stream =
    kind === 'ws'
      ? createWebSocketStream(remote.url('ws'), { WebSocket, headers })
      : createHttpStream(remote.url('http'), { headers })
  const writer = stream.writable.getWriter()
  cleanup.push(() => writer.close().catch(() => undefined))
  const received: Message[] = []
  let wake: (() => void) | undefined
  void (async () => {
    for await (const message of stream.readable) {
      received.push(message as Message)
      wake?.()
    }
  })().catch(() => undefined)
  const until = async <T>(find: () => T | undefined): Promise<T> => {
    for (let found = find(); ; found = find()) {
      if (found !== undefined) return found
      await new Promise<void>((resolve) => {
        wake = resolve
      })
    }
  }
  let id = 0
  const request = async (method: string, params: unknown): Promise<Message> => {
    const n = ++id
    await writer.write({ jsonrpc: '2.0', id: n, method, params } as AnyMessage)
    return until(() => received.find((m) => m.id === n && m.method === undefined))
  }
  const notify = (method: string, params: unknown) =>
    writer.write({ jsonrpc: '2.0', method, params } as AnyMessage)
  const updates = () => received.filter((m) => m.method === 'session/update').map((m) => m.params.update)
  const initialize = () =>
    request('initialize', { protocolVersion: 2, info: { name: 't', version: '1' }, capabilities: {} })
  return { received, until, request, notify, updates, initialize }
}

async function serverWith(turns: unknown[]): Promise<RemoteServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-remote-v2-'))
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
  cleanup.push(
    () => remote.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  )
  return remote
}

describe.each(['http', 'ws'] as const)('ACP v2 over %s', (kind) => {
  it('initialize 2, session/new, a prompt turn: accepted, user_message, running, chunks, idle', async () => {
    const remote = await serverWith([[[{ text: 'Hello ' }, { text: 'from v2.' }]]])
    const { received, until, request, updates, initialize } = v2Client(remote, kind)
    const init = await initialize()
    expect(init.result.protocolVersion).toBe(2)
    const { transport, ...capabilities } = init.result.capabilities
    expect(problems('InitializeResponse', { ...init.result, capabilities })).toEqual([])
    expect(init.result.capabilities.transport.resumable.retentionMessages).toBeGreaterThan(0)
    const created = await request('session/new', { cwd: process.cwd() })
    expect(problems('NewSessionResponse', created.result)).toEqual([])
    const sessionId = created.result.sessionId
    const prompted = await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    expect(problems('PromptResponse', prompted.result)).toEqual([])
    await until(() => updates().find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle'))
    const live = updates()
    expect(
      live.filter((u) => u.sessionUpdate === 'state_update').map((u) => [u.state, u.stopReason]),
    ).toEqual([
      ['running', undefined],
      ['idle', 'end_turn'],
    ])
    expect(live.find((u) => u.sessionUpdate === 'user_message')?.messageId).toBe(prompted.result.messageId)
    for (const message of received.filter((m) => m.method === 'session/update'))
      expect(problems('UpdateSessionNotification', message.params), JSON.stringify(message)).toEqual([])
  })

  it('session/resume sends the state now before its answer: running mid-turn, idle with the stop reason after', async () => {
    const remote = await serverWith([[[{ text: 'working' }, { delayMs: 600_000 }]]])
    const a = v2Client(remote, kind)
    await a.initialize()
    const sessionId = (await a.request('session/new', { cwd: process.cwd() })).result.sessionId
    await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })
    await a.until(() => a.updates().find((u) => u.sessionUpdate === 'agent_message_chunk'))

    /** What a new client is sent for `session/resume`, up to and with its answer. */
    const resume = async () => {
      const b = v2Client(remote, kind)
      await b.initialize()
      const answer = await b.request('session/resume', { sessionId, cwd: process.cwd() })
      expect(answer.error).toBeUndefined()
      const before = b.received.slice(0, b.received.indexOf(answer))
      const states = before.filter(
        (m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'state_update',
      )
      for (const message of states) expect(problems('UpdateSessionNotification', message.params)).toEqual([])
      return states.map((m) => m.params)
    }
    expect(await resume()).toEqual([
      { sessionId, update: { sessionUpdate: 'state_update', state: 'running' } },
    ])
    await a.notify('session/cancel', { sessionId })
    await a.until(() => a.updates().find((u) => u.sessionUpdate === 'state_update' && u.state === 'idle'))
    expect(await resume()).toEqual([
      { sessionId, update: { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' } },
    ])
  })
})
