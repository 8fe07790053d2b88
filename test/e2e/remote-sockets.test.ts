import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { send } from '../support/raw-remote.js'
import { RemoteServer } from '../support/remote-server.js'

/** `--max-sockets`: raw sockets over the cap are answered 503 and closed, HTTP and upgrade alike. */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const MAX_SOCKETS = 4

/** A TCP socket to the server, once connected. */
function socketTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Everything the server writes on a new socket after `request`, until it closes the socket. */
async function answerTo(port: number, request: string): Promise<string> {
  const socket = await socketTo(port)
  let text = ''
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8')
  })
  socket.write(request)
  await new Promise((resolve) => socket.once('close', resolve))
  return text
}

describe('serve --listen --max-sockets', () => {
  it('answers a socket over the cap 503 and closes it, an upgrade too; a freed slot serves again', async () => {
    const server = await RemoteServer.start(['--memory', '--max-sockets', String(MAX_SOCKETS)])
    cleanup.push(() => server.stop())
    const held = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => socketTo(server.port)))
    const refused = await answerTo(server.port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    expect(refused).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/)
    expect(refused).toContain('Retry-After: 1')
    expect(refused).toContain('too many sockets')
    const upgrade = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/acp`, {
        headers: { authorization: `Bearer ${server.token}` },
      })
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      socket.once('open', () => reject(new Error('the upgrade was accepted')))
      socket.once('error', () => {})
    })
    expect(upgrade).toBe(503)
    expect(server.stderr).toContain('socket refused')
    for (const socket of held) socket.destroy()
    // Closed sockets leave the count as the server sees them close: ask until it answers.
    let status = 0
    while (status !== 200) status = (await send(server.port, { method: 'GET', path: '/healthz' })).status
    const client = server.client('ws')
    await client.initialize()
    const { sessionId } = await client.agent.request('session/new', { cwd: client.cwd, mcpServers: [] })
    expect(sessionId).toBeTruthy()
    client.close()
  })
})
