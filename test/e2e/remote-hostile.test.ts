import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { send } from '../support/raw-remote.js'
import { RemoteServer } from '../support/remote-server.js'

/**
 * `serve --listen` against hostile or broken peers: each is refused or cut off with a clear
 * status, and a well-behaved client on the same server goes on unaffected.
 */
let server: RemoteServer
const MAX_CONNECTIONS = 20
const MESSAGE_CAP = 1024 * 1024
const FLOOD = 1000

beforeAll(async () => {
  server = await RemoteServer.start([
    '--memory',
    ...['--max-connections', String(MAX_CONNECTIONS), '--max-message-bytes', String(MESSAGE_CAP)],
    ...['--max-buffered-bytes', '65536', '--keepalive-ms', '100', '--max-output-stall-ms', '500'],
    ...['--headers-timeout-ms', '500'],
  ])
})
afterAll(async () => {
  const code = await server.stop()
  expect(code).toBe(0)
})

const bearer = () => ({ authorization: `Bearer ${server.token}` })
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 1 },
})
const post = (headers: Record<string, string>, body = initialize) =>
  send(server.port, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

/** A full session round trip through the SDK's client: the server still serves others. */
async function stillServes(): Promise<void> {
  const before = await connectionCount()
  const client = server.client('http')
  await client.initialize()
  const { sessionId } = await client.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })
  const answer = await client.agent.request('session/prompt', {
    sessionId,
    prompt: [{ type: 'text', text: 'hi' }],
  })
  expect(answer.stopReason).toBe('end_turn')
  client.close()
  await until(async () => (await connectionCount()) === before)
}

async function connectionCount(): Promise<number> {
  return JSON.parse((await send(server.port, { method: 'GET', path: '/healthz' })).body).connections
}

function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/acp`, { headers })
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    socket.once('open', () => reject(new Error('the upgrade was accepted')))
    socket.once('error', () => {})
  })
}

describe('serve --listen against hostile input', () => {
  it('GET /healthz answers without a token', async () => {
    const health = await send(server.port, { method: 'GET', path: '/healthz' })
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' })
  })

  it('no token, a wrong token: 401 on requests and upgrades', async () => {
    expect((await post({})).status).toBe(401)
    const wrong = await post({ authorization: 'Bearer not-the-token-at-all-000000' })
    expect(wrong.status).toBe(401)
    expect(JSON.parse(wrong.body).error).toContain('wrong')
    expect(await upgradeStatus({})).toBe(401)
    expect(await upgradeStatus({ authorization: 'Bearer nope' })).toBe(401)
    await stillServes()
  })

  it('a foreign Origin: 403 even with the right token, on requests and upgrades', async () => {
    const page = { ...bearer(), origin: 'https://evil.example' }
    const refused = await post(page)
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body).error).toContain('origin')
    expect(await upgradeStatus(page)).toBe(403)
  })

  it('a 100 MB body: 413 before it is read, the socket closed', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/acp',
          headers: {
            ...bearer(),
            'content-type': 'application/json',
            'content-length': String(100 * 1024 * 1024),
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.write(Buffer.alloc(64 * 1024, 0x20))
    })
    expect(status).toBe(413)
    const chunked = await new Promise<number>((resolve) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, method: 'POST', path: '/acp', headers: bearer() },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', () => {})
      for (let i = 0; i < 3; i++) req.write(Buffer.alloc(MESSAGE_CAP / 2, 0x20))
    })
    expect(chunked).toBe(413)
    await stillServes()
  })

  it('a WebSocket frame over the cap closes that socket with 1009', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/acp`, { headers: bearer() })
    await new Promise((resolve) => socket.once('open', resolve))
    const code = new Promise<number>((resolve) => socket.once('close', (closeCode) => resolve(closeCode)))
    socket.send('x'.repeat(MESSAGE_CAP + 1))
    expect(await code).toBe(1009)
  })

  it(`${FLOOD} connections at once (the cap ${MAX_CONNECTIONS}): the rest get 503, a freed slot is reusable`, async () => {
    const before = await connectionCount()
    const answers = await Promise.all(Array.from({ length: FLOOD }, () => post(bearer())))
    const opened = answers.filter((a) => a.status === 200)
    expect(opened.length).toBeLessThanOrEqual(MAX_CONNECTIONS)
    // The rest are refused plainly: 503 past the cap, or 408 when a flooded server did not read
    // a request's headers within --headers-timeout-ms (500 ms here).
    const refused = answers.filter((a) => a.status !== 200)
    expect(refused.every((a) => a.status === 503 || a.status === 408)).toBe(true)
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0)
    for (const answer of refused.filter((a) => a.status === 503))
      expect(JSON.parse(answer.body).error).toBe('too many connections')
    expect(opened.length).toBe(MAX_CONNECTIONS - before)
    expect(await connectionCount()).toBe(MAX_CONNECTIONS)
    for (const answer of opened) {
      const id = String(answer.headers['acp-connection-id'])
      expect(
        (await send(server.port, { method: 'DELETE', headers: { ...bearer(), 'acp-connection-id': id } }))
          .status,
      ).toBe(204)
    }
    await until(async () => (await connectionCount()) === before)
    await stillServes()
  })

  it('a half-open socket that never finishes its headers is closed; others are served meanwhile', async () => {
    const socket = connect(server.port, '127.0.0.1')
    const closed = new Promise<string>((resolve) => {
      let said = ''
      socket.on('data', (chunk) => {
        said += chunk.toString()
      })
      socket.once('close', () => resolve(said))
    })
    socket.write('GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthori')
    await stillServes()
    expect(await closed).toMatch(/^HTTP\/1\.1 408/)
  })

  it('a half-open WebSocket (it never answers a ping) is dropped; its connection waits to be resumed', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/acp`, { headers: bearer(), autoPong: false })
    const opened = new Promise<string>((resolve) =>
      socket.once('upgrade', (res) => resolve(String(res.headers['acp-connection-id']))),
    )
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
    socket.on('error', () => {})
    const connectionId = await opened
    // The server pings every 100 ms and drops the socket at the next ping without a pong: no close frame.
    expect(await closed).toBe(1006)
    const resumed = await new Promise<string>((resolve) => {
      const next = new WebSocket(`ws://127.0.0.1:${server.port}/acp`, { headers: bearer() })
      next.once('open', () =>
        next.send(
          JSON.stringify({ jsonrpc: '2.0', method: 'stream/resume', params: { connectionId, cursor: '0' } }),
        ),
      )
      next.once('message', (data) => {
        resolve(JSON.parse(data.toString()).method)
        next.close()
      })
    })
    expect(resumed).toBe('stream/resumed')
    await stillServes()
  })

  it('a reader that stops reading its stream is cut off; the server goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-slow-'))
    const chunk = { text: 'y'.repeat(1024 * 1024) }
    writeFileSync(
      join(dir, 'model.json'),
      JSON.stringify({ turns: [[Array.from({ length: 40 }, () => chunk)]] }),
    )
    const loud = await RemoteServer.start([
      ...['--memory', '--model', `script:${join(dir, 'model.json')}`],
      ...['--max-buffered-bytes', '65536', '--keepalive-ms', '100', '--max-output-stall-ms', '500'],
    ])
    const other = loud.client('http')
    await other.initialize()
    const { sessionId } = await other.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })
    const opened = await send(loud.port, {
      method: 'POST',
      headers: { authorization: `Bearer ${loud.token}`, 'content-type': 'application/json' },
      body: initialize,
    })
    const id = String(opened.headers['acp-connection-id'])
    const socket = connect(loud.port, '127.0.0.1')
    socket.on('error', () => {})
    const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    let cutOff = false
    void cut.then(() => {
      cutOff = true
    })
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      `GET /acp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${loud.token}\r\nAcp-Connection-Id: ${id}\r\n\r\n`,
    )
    socket.pause()
    const headers = {
      authorization: `Bearer ${loud.token}`,
      'content-type': 'application/json',
      'acp-connection-id': id,
    }
    const body = {
      jsonrpc: '2.0',
      id: 100,
      method: 'session/prompt',
      params: { sessionId, prompt: [{ type: 'text', text: 'talk' }] },
    }
    await send(loud.port, { method: 'POST', headers, body: JSON.stringify(body) })
    await until(async () => loud.stderr.includes('stream cut off'))
    expect(loud.stderr).toMatch(/stream cut off: the client (does not read its stream|stopped reading)/)
    socket.resume()
    await cut
    expect(cutOff).toBe(true)
    const health = await send(loud.port, { method: 'GET', path: '/healthz' })
    expect(health.status).toBe(200)
    other.close()
    expect(await loud.stop()).toBe(0)
    rmSync(dir, { recursive: true, force: true })
    await stillServes()
  })
})

async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5))
}
