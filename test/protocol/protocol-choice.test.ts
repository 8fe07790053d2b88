import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { type App, createApp } from '../../src/app.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { TestPeer } from '../support/wire/test-peer.js'

let app: App | undefined
afterEach(async () => {
  await app?.ctx.stop()
  app = undefined
})

/** A connection to a server serving `protocolVersion` alone (`--protocol`), or both when absent. */
async function serve(protocolVersion?: number) {
  app = await createApp({
    storeDir: null,
    model: 'echo',
    agentInfo: { name: 'dsh-acp', version: 'test' },
    ...(protocolVersion !== undefined && { protocolVersion }),
  })
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  app.ctx.acp.serve(toServer, fromServer)
  const peer = new TestPeer(toServer, fromServer)
  let id = 0
  return async (method: string, params: unknown) => {
    const requestId = ++id
    peer.sendMessage({ jsonrpc: '2.0', id: requestId, method, params })
    return (await peer.waitFor((m) => m.id === requestId && !('method' in m))) as Record<string, any>
  }
}

const v2Init = (protocolVersion = 2) => ({
  protocolVersion,
  info: { name: 't', version: '1' },
  capabilities: {},
})

describe('the protocol version of a connection (--protocol, the SDK router rules)', () => {
  it('auto: the highest served at or below the requested one (v1 below 2, v2 from 2 on)', async () => {
    for (const [requested, chosen] of [
      [0, 1],
      [1, 1],
      [2, 2],
      [7, 2],
    ] as const) {
      const call = await serve()
      const answer = await call('initialize', v2Init(requested))
      expect(answer.result.protocolVersion).toBe(chosen)
      expect('capabilities' in answer.result).toBe(chosen === 2)
      await app?.ctx.stop()
    }
  })

  it('v1 alone answers a v2 client in v1', async () => {
    const call = await serve(1)
    const answer = await call('initialize', v2Init())
    expect(answer.result).toMatchObject({ protocolVersion: 1, agentCapabilities: {} })
  })

  it('v2 alone refuses a v1 client with -32022 (requested, supported) and stays open for a v2 initialize', async () => {
    const call = await serve(2)
    const refused = await call('initialize', { protocolVersion: 1 })
    expect(refused.error).toMatchObject({ code: -32022, data: { requested: 1, supported: [2] } })
    expect((await call('session/list', {})).error.code).toBe(-32600)
    expect((await call('initialize', v2Init())).result.protocolVersion).toBe(2)
  })

  it('a repeat on v1 is answered in v1, whatever it asks (never re-routed)', async () => {
    const call = await serve()
    await call('initialize', { protocolVersion: 1 })
    expect((await call('initialize', v2Init())).result.protocolVersion).toBe(1)
    await call('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
    expect((await call('initialize', { protocolVersion: 1 })).result.protocolVersion).toBe(1)
  })

  it('a repeat on v2: accepted for v2 or later before any other request; -32600 below v2 or after another request', async () => {
    const call = await serve()
    await call('initialize', v2Init())
    expect((await call('initialize', v2Init(3))).result.protocolVersion).toBe(2)
    expect((await call('initialize', { protocolVersion: 1 })).error.code).toBe(-32600)
    expect((await call('session/list', {})).result).toBeDefined()
    expect((await call('initialize', v2Init())).error.code).toBe(-32600)
  })
})
