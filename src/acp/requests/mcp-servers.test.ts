import { describe, expect, it } from 'vitest'
import { mcpServerConfigs } from './mcp-server-params.js'

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
})
