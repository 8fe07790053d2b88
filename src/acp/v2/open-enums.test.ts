import { describe, expect, it } from 'vitest'
import { validateParams } from '../validate-params.js'
import { readV2Request } from './reader.js'

/** What the v1 call gets for a v2 request, or the error a v2 client gets. */
async function read(method: string, params: unknown): Promise<{ method: string; params: unknown }> {
  const route = readV2Request(method, params)
  const checked = await validateParams(route.method as 'session/new', route.params)
  return { method: route.method, params: checked }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  )

const stdio = { name: 'files', command: 'node', args: ['server.js'], env: [] }
const http = { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] }

describe('v2 MCP server configs: a required type, stdio and http served', () => {
  it('reads stdio (its type dropped, args and env defaulted) and http as v1 does', async () => {
    const { params } = await read('session/new', {
      cwd: '/w',
      mcpServers: [{ type: 'stdio', name: 'bare', command: 'x' }, { type: 'stdio', ...stdio }, http],
    })
    expect(params).toEqual({
      cwd: '/w',
      mcpServers: [{ name: 'bare', command: 'x', args: [], env: [] }, stdio, http],
    })
  })

  it.each([
    [
      'SSE (removed in v2)',
      { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
      '"sse"',
    ],
    [
      "another agent's own",
      { type: '_acme_socket', name: 'odd', command: 'x', args: [], env: [] },
      '"_acme_socket"',
    ],
    ['a future one', { type: 'websocket', name: 'ws', url: 'ws://127.0.0.1:9' }, '"websocket"'],
    ['none (v1 stdio)', stdio, 'requires "type"'],
  ])('refuses %s with -32602 naming the server, never as a known transport', async (_name, server, says) => {
    for (const method of ['session/new', 'session/resume', 'session/fork']) {
      const error = await failure(read(method, { sessionId: 's', cwd: '/w', mcpServers: [http, server] }))
      expect(error).toEqual({ code: -32602, message: expect.stringContaining(says) })
      expect(error?.message).toContain(`mcpServers[1] ("${server.name}")`)
    }
  })
})

describe('v2 open enums in requests: unknown values never read as known ones', () => {
  it('set_config_option: "id" and "boolean" are read; another value type, or none, is -32602', async () => {
    const id = await read('session/set_config_option', {
      sessionId: 's',
      configId: 'mode',
      type: 'id',
      value: 'ask',
    })
    expect(id.params).toEqual({ sessionId: 's', configId: 'mode', value: 'ask' })
    const flag = { sessionId: 's', configId: 'x', type: 'boolean', value: true }
    expect((await read('session/set_config_option', flag)).params).toEqual(flag)
    for (const type of ['_acme_range', 'number', undefined]) {
      const error = await failure(
        read('session/set_config_option', { sessionId: 's', configId: 'mode', type, value: 'ask' }),
      )
      expect(error?.code).toBe(-32602)
    }
  })

  it('a prompt with an unknown content block type is -32602', async () => {
    const error = await failure(
      read('session/prompt', { sessionId: 's', prompt: [{ type: '_acme_canvas', data: 'x' }] }),
    )
    expect(error).toEqual({ code: -32602, message: expect.stringContaining('_acme_canvas') })
  })

  it('a resume with an unknown replay cursor is -32602, never a resume without replay', async () => {
    const error = await failure(
      read('session/resume', { sessionId: 's', cwd: '/w', replayFrom: { type: '_acme_tail' } }),
    )
    expect(error?.code).toBe(-32602)
  })
})
