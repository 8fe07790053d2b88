import { describe, expect, it } from 'vitest'
import { validateAcpMessage } from './acp-schema.js'

const update = (u: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: 'ses_1', update: u },
})

describe('validateAcpMessage with the auto schema', () => {
  it('checks a session/update variant only the unstable draft defines against that draft', () => {
    const announce = update({
      sessionUpdate: 'subagent_update',
      sessionId: 'ses_2',
      state: { state: 'running' },
    })
    expect(validateAcpMessage(announce, { schema: 'stable' })).not.toEqual([])
    expect(validateAcpMessage(announce, { schema: 'auto' })).toEqual([])
    const broken = update({ sessionUpdate: 'subagent_update', title: 'no session id' })
    expect(validateAcpMessage(broken, { schema: 'auto' })).not.toEqual([])
  })

  it('still checks stable variants against the stable schema', () => {
    expect(validateAcpMessage(update({ sessionUpdate: 'tool_call_update' }), { schema: 'auto' })).not.toEqual(
      [],
    )
    const chunk = update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } })
    expect(validateAcpMessage(chunk, { schema: 'auto' })).toEqual([])
  })
})
