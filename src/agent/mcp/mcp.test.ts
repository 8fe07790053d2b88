import { describe, expect, it } from 'vitest'
import { toolResultOf } from './mcp-tool.js'
import { namespacedToolName, redact } from './server-config.js'

describe('MCP pieces', () => {
  it('namespaces tool names so every model API accepts them', () => {
    expect(namespacedToolName('files', 'read')).toBe('mcp__files__read')
    expect(namespacedToolName('my server', 'do.it/now')).toBe('mcp__my_server__do_it_now')
    expect(namespacedToolName('s', 'x'.repeat(100))).toHaveLength(64)
  })

  it('redacts env and header values from texts', () => {
    const config = {
      transport: 'http' as const,
      name: 'h',
      url: 'http://127.0.0.1:1/?k=tok-1234',
      headers: [{ name: 'Authorization', value: 'tok-1234' }],
    }
    expect(redact('GET http://127.0.0.1:1/?k=tok-1234 failed (tok-1234)', config)).toBe(
      'GET http://127.0.0.1:1/?k=*** failed (***)',
    )
  })

  it('turns a CallToolResult into what the model reads', () => {
    expect(
      toolResultOf({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'resource', resource: { uri: 'file:///x', text: 'body' } },
        ],
      }),
    ).toEqual({ output: 'a\n[image image/png]\nbody' })
    expect(toolResultOf({ content: [{ type: 'text', text: 'bad' }], isError: true })).toEqual({
      output: 'bad',
      isError: true,
    })
    expect(toolResultOf({ content: [], structuredContent: { n: 1 } })).toEqual({ output: '{"n":1}' })
  })
})
