import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { forkPlugin } from '../../src/acp/plugin.js'
import { type App, createApp } from '../../src/app.js'
import { createSequentialIdGenerator } from '../../src/session/index.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { TestPeer } from '../support/wire/test-peer.js'

let app: App | undefined
afterEach(async () => {
  await app?.ctx.stop()
  app = undefined
})

async function serve() {
  app = await createApp({
    storeDir: null,
    model: 'echo',
    agentInfo: { name: 'dsh-acp', version: 'test' },
    idGenerator: createSequentialIdGenerator('ses_'),
  })
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  app.ctx.acp.serve(toServer, fromServer)
  const peer = new TestPeer(toServer, fromServer)
  let id = 0
  const call = async (method: string, params: unknown) => {
    const requestId = ++id
    peer.sendMessage({ jsonrpc: '2.0', id: requestId, method, params })
    return peer.waitFor((m) => m.id === requestId && !('method' in m))
  }
  return { app, call }
}

const forkCapability = (response: Record<string, unknown>) =>
  (response.result as { agentCapabilities: { sessionCapabilities: Record<string, unknown> } })
    .agentCapabilities.sessionCapabilities.fork

describe('the fork plugin at run time', () => {
  it('disposing it removes session/fork and its capability for the next initialize; plugging it again restores both', async () => {
    const { app, call } = await serve()
    expect(forkCapability(await call('initialize', { protocolVersion: 1 }))).toEqual({})
    const { result } = await call('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
    const sessionId = (result as { sessionId: string }).sessionId
    expect(await call('session/fork', { sessionId, cwd: PROJECT_DIR })).toMatchObject({
      result: { _meta: { dsh: { parentSession: sessionId, seedLength: 0 } } },
    })

    app.fork?.dispose()
    expect(forkCapability(await call('initialize', { protocolVersion: 1 }))).toBeUndefined()
    expect(await call('session/fork', { sessionId, cwd: PROJECT_DIR })).toMatchObject({
      error: { code: -32601 },
    })

    app.ctx.plugin(forkPlugin)
    expect(forkCapability(await call('initialize', { protocolVersion: 1 }))).toEqual({})
    expect(await call('session/fork', { sessionId, cwd: PROJECT_DIR })).toMatchObject({ result: {} })
  })
})
