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

describe('validateAcpMessage for protocol version 2', () => {
  const v2Update = (u: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 'ses_1', update: u },
  })

  it('checks a v2 connection against the v2 schema, where v1 has no such update', () => {
    const idle = v2Update({ sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn' })
    expect(validateAcpMessage(idle, { schema: 'auto', protocol: 2 })).toEqual([])
    expect(validateAcpMessage(idle, { schema: 'auto' })).not.toEqual([])
    const broken = v2Update({ sessionUpdate: 'state_update', state: 7 })
    expect(validateAcpMessage(broken, { schema: 'auto', protocol: 2 })).not.toEqual([])
  })

  it('checks a v2 answer against the v2 definition of the method it answers', () => {
    const accepted = { jsonrpc: '2.0', id: 3, result: { messageId: 'msg_1' } }
    expect(validateAcpMessage(accepted, { schema: 'auto', protocol: 2, method: 'session/prompt' })).toEqual(
      [],
    )
    expect(validateAcpMessage(accepted, { schema: 'auto', method: 'session/prompt' })).not.toEqual([])
  })
})
