import { describe, expect, it } from 'vitest'
import { acpMethod, validateAcpDefinition, validateAcpMessage } from './acp-schema.js'

describe('ACP schema helper', () => {
  const update = {
    sessionId: 'ses_1',
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
    _meta: { dsh: { seq: 3 } },
  }

  it('accepts a valid session/update notification and its params definition', () => {
    expect(validateAcpMessage({ jsonrpc: '2.0', method: 'session/update', params: update })).toEqual([])
    expect(validateAcpDefinition('SessionNotification', update)).toEqual([])
  })

  it('refuses params that do not fit the method', () => {
    const bad = { ...update, update: { sessionUpdate: 'agent_message_chunk' } }
    expect(validateAcpMessage({ jsonrpc: '2.0', method: 'session/update', params: bad })).not.toEqual([])
    expect(validateAcpDefinition('SessionNotification', { update: update.update })).not.toEqual([])
  })

  it('refuses a wrong envelope, an unknown method, and a response with both result and error', () => {
    expect(validateAcpMessage({ jsonrpc: '1.0', method: 'session/update', params: update })).not.toEqual([])
    expect(validateAcpMessage({ jsonrpc: '2.0', id: 1, method: 'session/nope', params: {} })).not.toEqual([])
    expect(
      validateAcpMessage({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }),
    ).not.toEqual([])
  })

  it('checks a response result against the method it answers', () => {
    const ok = { jsonrpc: '2.0', id: 7, result: { sessionId: 'ses_2' } }
    expect(validateAcpMessage(ok, { method: 'session/new' })).toEqual([])
    expect(validateAcpMessage({ ...ok, result: {} }, { method: 'session/new' })).not.toEqual([])
    expect(validateAcpMessage({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad' } })).toEqual([])
  })

  it('maps methods to their definitions and throws on an unknown definition', () => {
    expect(acpMethod('session/prompt')).toEqual({ request: 'PromptRequest', response: 'PromptResponse' })
    expect(() => validateAcpDefinition('NoSuchThing', {})).toThrow(/no \$defs\/NoSuchThing/)
  })

  it('auto: the stable schema for stable methods, the unstable draft for the rest and for unstable shapes', () => {
    const subagent = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'ses_1',
        update: {
          sessionUpdate: 'subagent_update',
          sessionId: 'ses_2',
          title: 'T',
          state: { state: 'running' },
        },
      },
    }
    expect(validateAcpMessage(subagent, { schema: 'stable' })).not.toEqual([])
    expect(validateAcpMessage(subagent, { schema: 'auto' })).toEqual([])
    const fork = {
      jsonrpc: '2.0',
      id: 1,
      method: 'session/fork',
      params: { sessionId: 's', cwd: '/w', mcpServers: [] },
    }
    expect(validateAcpMessage(fork, { schema: 'stable' })).toEqual([
      'message.method: session/fork is not an ACP request',
    ])
    expect(validateAcpMessage(fork, { schema: 'auto' })).toEqual([])
    const bad = { ...subagent, params: { ...subagent.params, update: { sessionUpdate: 'nonsense' } } }
    expect(validateAcpMessage(bad, { schema: 'auto' })).not.toEqual([])
  })
})
