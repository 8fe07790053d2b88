import { describe, expect, it } from 'vitest'
import { mcpServerConfigs, redactMcpSecrets } from './mcp-servers.js'

describe('mcpServers at the protocol boundary', () => {
  it('reads ACP mcpServers: stdio and http; sse, acp and duplicate names are refused', () => {
    expect(
      mcpServerConfigs('session/new', [
        { name: 'a', command: 'x', args: ['1'], env: [{ name: 'K', value: 'v' }] },
        { type: 'http', name: 'b', url: 'http://127.0.0.1:9/mcp', headers: [] },
      ]),
    ).toEqual([
      { transport: 'stdio', name: 'a', command: 'x', args: ['1'], env: [{ name: 'K', value: 'v' }] },
      { transport: 'http', name: 'b', url: 'http://127.0.0.1:9/mcp', headers: [] },
    ])
    expect(() =>
      mcpServerConfigs('session/new', [{ type: 'sse', name: 's', url: 'http://127.0.0.1:9', headers: [] }]),
    ).toThrow(/sse MCP servers are not supported/)
    expect(() => mcpServerConfigs('session/new', [{ type: 'acp', name: 'a' }])).toThrow(/acp MCP servers/)
    expect(() =>
      mcpServerConfigs('session/new', [
        { name: 'a', command: 'x', args: [], env: [] },
        { name: 'a', command: 'y', args: [], env: [] },
      ]),
    ).toThrow(/used twice/)
  })

  it('keeps secrets out of a recorded wire line', () => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: {
        cwd: '/w',
        mcpServers: [
          { name: 'a', command: 'x', args: [], env: [{ name: 'TOKEN', value: 'secret-1' }] },
          {
            type: 'http',
            name: 'b',
            url: 'http://h',
            headers: [{ name: 'Authorization', value: 'secret-2' }],
          },
        ],
      },
    })
    const redacted = redactMcpSecrets(line)
    expect(redacted).not.toContain('secret-')
    expect(JSON.parse(redacted).params.mcpServers[0].env).toEqual([{ name: 'TOKEN', value: '***' }])
    expect(redactMcpSecrets('{"jsonrpc":"2.0","method":"x"}')).toBe('{"jsonrpc":"2.0","method":"x"}')
    const deep = `{"params":{"mcpServers":[{"env":[{"name":"K","value":"s3cret"}]}],"x":${'['.repeat(20000)}${']'.repeat(20000)}}}`
    const safe = redactMcpSecrets(deep)
    expect(safe).not.toContain('s3cret')
    expect(safe).toBe(deep.replace('"s3cret"', '"***"'))
    const escaped = '{"params":{"mcpServers":[{"env":[{"name":"K","value":"\\u0073ecret"}]}]}}'
    expect(JSON.parse(redactMcpSecrets(escaped))).toEqual({ withheld: expect.any(String) })
  })
})
