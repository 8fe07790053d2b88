import { describe, expect, it } from 'vitest'
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
})
