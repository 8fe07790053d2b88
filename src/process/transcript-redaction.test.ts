import { describe, expect, it } from 'vitest'
import { redactMcpSecrets } from './transcript-redaction.js'

describe('the transcript redaction', () => {
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
