import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { type App, createApp } from '../../src/app.js'
import { TestPeer } from '../support/wire/test-peer.js'

let app: App | undefined
afterEach(async () => {
  await app?.ctx.stop()
  app = undefined
})

async function serveWithSlowMethod() {
  app = await createApp({ storeDir: null, model: 'echo', agentInfo: { name: 'dsh-acp', version: 'test' } })
  const calls: Array<(value: string) => void> = []
  let started: () => void = () => {}
  app.ctx.acp.register({
    name: '_test/slow',
    beforeInitialize: true,
    handle: () =>
      new Promise<string>((resolve) => {
        calls.push(resolve)
        started()
      }),
  })
  /** Resolves the oldest running call once it has started. */
  const finish = async (value: string) => {
    if (calls.length === 0) await new Promise<void>((resolve) => (started = resolve))
    calls.shift()?.(value)
  }
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  app.ctx.acp.serve(toServer, fromServer)
  return { peer: new TestPeer(toServer, fromServer), finish }
}

describe('$/cancel_request', () => {
  it('a cancelled request that is still running ends with -32800, and only once', async () => {
    const { peer, finish } = await serveWithSlowMethod()
    peer.sendMessage({ jsonrpc: '2.0', id: 7, method: '_test/slow', params: {} })
    peer.sendMessage({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 7 } })
    expect(await peer.waitFor((m) => m.id === 7)).toMatchObject({ error: { code: -32800 } })
    await finish('too late')
    peer.sendMessage({ jsonrpc: '2.0', id: 8, method: 'initialize', params: { protocolVersion: 1 } })
    await peer.waitFor((m) => m.id === 8)
    expect(peer.messages.filter((m) => m.id === 7)).toHaveLength(1)
  })

  it('cancelling an unknown or finished request changes nothing', async () => {
    const { peer, finish } = await serveWithSlowMethod()
    peer.sendMessage({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'nope' } })
    peer.sendMessage({ jsonrpc: '2.0', id: 1, method: '_test/slow', params: {} })
    await finish('done')
    expect(await peer.waitFor((m) => m.id === 1)).toMatchObject({ result: 'done' })
    peer.sendMessage({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 1 } })
    peer.sendMessage({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 1 } })
    expect(await peer.waitFor((m) => m.id === 2)).toMatchObject({ result: { protocolVersion: 1 } })
    expect(peer.messages.filter((m) => m.id === 1)).toHaveLength(1)
  })
})
