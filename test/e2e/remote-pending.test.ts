import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Delivered, openSocket, openStream, send } from '../support/raw-remote.js'
import { RemoteServer } from '../support/remote-server.js'

/**
 * `--max-buffered-bytes` on the way in: a client whose requests are not answered yet (prompts
 * queued behind a running turn) past the cap gets 429 with `Retry-After` on its next POST, or its
 * WebSocket closed with 1008; once its requests are answered it is served again, and other
 * connections are served meanwhile.
 */
const CAP = 65_536
const BIG = 'x'.repeat(30_000)
let server: RemoteServer
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-acp-pending-'))
  // Turn 0 streams "hold" then waits until cancelled; every later turn answers at once.
  const turns = [
    [[{ text: 'hold' }, { delayMs: 600_000 }]],
    ...Array.from({ length: 8 }, () => [[{ text: 'ok' }]]),
  ]
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  server = await RemoteServer.start([
    ...['--memory', '--model', `script:${join(dir, 'model.json')}`],
    ...['--max-buffered-bytes', String(CAP)],
  ])
})
afterAll(async () => {
  expect(await server.stop()).toBe(0)
  rmSync(dir, { recursive: true, force: true })
})

const message = (id: number | undefined, method: string, params: object) =>
  JSON.stringify({ jsonrpc: '2.0', ...(id !== undefined && { id }), method, params })
const prompt = (id: number, sessionId: string, text: string) =>
  message(id, 'session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

/** Every message a client was sent, and a way to wait for one. */
class Inbox {
  readonly all: Delivered['message'][] = []
  private waiters: Array<() => void> = []
  add = (delivered: Delivered) => {
    this.all.push(delivered.message)
    for (const wake of this.waiters.splice(0)) wake()
  }
  async find(test: (m: Delivered['message']) => boolean): Promise<Delivered['message']> {
    for (;;) {
      const found = this.all.find(test)
      if (found) return found
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }
  answer(id: number) {
    return this.find((m) => m.id === id && m.method === undefined)
  }
  /** The session's first streamed chunk (its turn runs). */
  chunk(sessionId: string) {
    return this.find((m) => {
      const params = m.params as { sessionId?: string; update?: { sessionUpdate?: string } } | undefined
      return params?.sessionId === sessionId && params.update?.sessionUpdate === 'agent_message_chunk'
    })
  }
}

async function newSession(sendMessage: (text: string) => unknown, inbox: Inbox): Promise<string> {
  await sendMessage(message(1, 'session/new', { cwd: process.cwd(), mcpServers: [] }))
  const answer = await inbox.answer(1)
  return (answer.result as { sessionId: string }).sessionId
}

describe('requests not answered yet, past --max-buffered-bytes', () => {
  it('HTTP: the next POST gets 429 with Retry-After; once answered, POSTs are taken again', async () => {
    const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }
    const opened = await send(server.port, {
      method: 'POST',
      headers: auth,
      body: message(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} }),
    })
    const headers = { ...auth, 'acp-connection-id': String(opened.headers['acp-connection-id']) }
    const inbox = new Inbox()
    const stream = await openStream(server.port, headers, inbox.add)
    const post = (body: string) => send(server.port, { method: 'POST', headers, body })
    const sessionId = await newSession(post, inbox)
    expect((await post(prompt(2, sessionId, 'hold'))).status).toBe(202)
    await inbox.chunk(sessionId)
    // Three prompts queued behind the running turn: about 90 KB unanswered, over the cap.
    for (const id of [3, 4, 5]) expect((await post(prompt(id, sessionId, BIG))).status).toBe(202)
    const refused = await post(prompt(6, sessionId, 'one more'))
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(JSON.parse(refused.body).error).toMatch(/not answered yet/)
    // Another connection is served meanwhile.
    const other = server.client('ws')
    await other.initialize()
    expect(await other.agent.request('session/list', {})).toHaveProperty('sessions')
    other.close()
    // The cancel (a notification) is taken; the queued prompts then run and are answered.
    expect((await post(message(undefined, 'session/cancel', { sessionId }))).status).toBe(202)
    expect((await inbox.answer(2)).result).toMatchObject({ stopReason: 'cancelled' })
    for (const id of [3, 4, 5]) await inbox.answer(id)
    expect((await post(prompt(6, sessionId, 'one more'))).status).toBe(202)
    expect((await inbox.answer(6)).result).toMatchObject({ stopReason: 'end_turn' })
    stream.close()
  })

  it('WebSocket: the socket is closed with 1008; the running turn is not touched', async () => {
    const inbox = new Inbox()
    const { socket } = await openSocket(server.port, { authorization: `Bearer ${server.token}` }, inbox.add)
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    socket.send(message(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} }))
    const sessionId = await newSession((text) => socket.send(text), inbox)
    socket.send(prompt(2, sessionId, 'hold'))
    await inbox.chunk(sessionId)
    for (const id of [3, 4, 5]) socket.send(prompt(id, sessionId, BIG))
    socket.send(prompt(6, sessionId, 'one more'))
    expect(await closed).toBe(1008)
    expect(server.stderr).toMatch(/bytes of requests unanswered/)
    // The session's turn still runs: a client that resumes the session is told so.
    const next = server.client('http')
    await next.initialize()
    const resumed = await next.agent.request('session/resume', {
      sessionId,
      cwd: process.cwd(),
      mcpServers: [],
    })
    // …and which prompt's turn it is: the request id the first client sent it with.
    expect(resumed._meta?.['acp/turnState']).toEqual({
      state: 'running',
      turnSeq: expect.any(Number),
      promptRequestId: 2,
    })
    await next.agent.notify('session/cancel', { sessionId })
    next.close()
  })
})
