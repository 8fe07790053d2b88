import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { failure, v2TestAgent } from '../support/v2/v2-test-agent.js'

const agents = v2TestAgent('dsh-v2-enums-')

describe('ACP v2 open enums in requests, over the built binary', () => {
  it('unknown MCP transports, value types, archive filters and system prompt modes are -32602; the session is untouched', async () => {
    const { agent: a, dir } = agents.start((dir) => ['--store', join(dir, 'store')])
    await a.initialize()
    /** Sends params the SDK's types would not let through (values outside the known ones). */
    const request = (method: 'session/new' | 'session/set_config_option' | 'session/list', params: unknown) =>
      a.agent.request(method, JSON.parse(JSON.stringify(params)))
    const sse = { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] }
    expect(await failure(request('session/new', { cwd: dir, mcpServers: [sse] }))).toEqual({
      code: -32602,
      message: expect.stringContaining('the MCP transport "sse" is not supported'),
    })
    const mode = await failure(
      request('session/new', { cwd: dir, systemPrompt: { mode: '_acme', content: [] } }),
    )
    expect(mode?.code).toBe(-32602)
    const { sessionId } = await a.agent.request('session/new', { cwd: dir })
    const odd = await failure(
      request('session/set_config_option', {
        sessionId,
        configId: 'mode',
        type: '_acme_range',
        value: 'read-only',
      }),
    )
    expect(odd).toEqual({ code: -32602, message: expect.stringContaining('"_acme_range" is not supported') })
    const archived = await failure(request('session/list', { archived: '_acme_recent' }))
    expect(archived?.code).toBe(-32602)
    const listed = await a.agent.request('session/list', {})
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId])
    const options = await a.agent.request('session/set_config_option', {
      sessionId,
      configId: 'mode',
      type: 'id',
      value: 'read-only',
    })
    const current = options.configOptions.find((o) => o.configId === 'mode') as { currentValue?: string }
    expect(current.currentValue).toBe('read-only')
    expect(a.audit.problems).toEqual([])
  })
})
