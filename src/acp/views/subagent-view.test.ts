import { describe, expect, it } from 'vitest'
import { updateOf } from '../../../test/support/update-of.js'
import type { ClientBridge, SubagentLink } from '../../agent/types.js'
import type { SessionUpdateNotification } from '../../session/index.js'
import type { PermissionTarget } from '../client/client-bridge.js'
import type { ClientState } from '../method.js'
import { openSubagentView, supportsSubagents } from './subagent-view.js'

const LINK: SubagentLink = {
  sessionId: 'kid',
  parentSessionId: 'dad',
  callId: 'call_d',
  seq: 9,
  title: 'Helper',
  task: 'do it',
}

const client = (capabilities: Record<string, unknown>): ClientState =>
  ({ protocolVersion: 1, capabilities }) as ClientState

function wire(state: ClientState | undefined) {
  const sent: SessionUpdateNotification[] = []
  const bridges: { sessionId: string; target: PermissionTarget | undefined }[] = []
  return {
    sent,
    bridges,
    wire: {
      client: state,
      notify: async (n: SessionUpdateNotification) => {
        sent.push(n)
      },
      clientBridge: (sessionId: string, target?: PermissionTarget): ClientBridge => {
        bridges.push({ sessionId, target })
        return {}
      },
    },
  }
}

describe('the subagents client capability', () => {
  it('is supported only as an object ({}), never as omitted, null or another value', () => {
    expect(supportsSubagents(client({ subagents: {} }))).toBe(true)
    expect(supportsSubagents(client({ subagents: { _meta: {} } }))).toBe(true)
    for (const value of [undefined, null, true, 1, 'yes', []]) {
      expect(supportsSubagents(client({ subagents: value }))).toBe(false)
    }
    expect(supportsSubagents(undefined)).toBe(false)
  })
})

describe('openSubagentView', () => {
  it('without the capability: nothing is addressed to the child; progress goes to the parent’s call', () => {
    const w = wire(client({}))
    const view = openSubagentView(w.wire, LINK)
    view.sendUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'do it' } }, 2)
    view.sendUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hm' } }, 3)
    view.sendUpdate({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.txt' }, 4)
    view.sendUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed' }, 5)
    view.ended({ stopReason: 'end_turn', seq: 6, endReason: 'completed' })
    expect(w.sent.every((n) => n.sessionId === 'dad' && n._meta?.dsh.seq === 9)).toBe(true)
    expect(JSON.stringify(w.sent)).not.toContain('subagent_update')
    const firstText = (n: SessionUpdateNotification) => {
      const first = updateOf(n.update, 'tool_call_update')?.content?.[0]
      return first?.type === 'content' && first.content.type === 'text' ? first.content.text : undefined
    }
    expect(w.sent.map(firstText)).toEqual([
      'Subagent kid started: do it',
      'Running: Read a.txt',
      'Failed: Read a.txt',
    ])
    const [bridge] = w.bridges
    expect(bridge?.sessionId).toBe('dad')
    const asked = bridge?.target?.({
      sessionId: 'kid',
      toolCallId: 't2',
      title: 'Write b',
      kind: 'edit',
      rawInput: {},
    })
    expect(asked).toMatchObject({
      sessionId: 'dad',
      toolCall: {
        toolCallId: 'call_d',
        title: 'Subagent Helper (kid): Write b',
        _meta: { dsh: { subagent: { sessionId: 'kid', toolCallId: 't2' } } },
      },
    })
  })

  it('with the capability: subagent_update first, then the child’s own updates, then idle with the stop reason or the error', () => {
    const w = wire(client({ subagents: {} }))
    const view = openSubagentView(w.wire, LINK)
    expect(w.sent[0]).toEqual({
      sessionId: 'dad',
      update: {
        sessionUpdate: 'subagent_update',
        sessionId: 'kid',
        title: 'Helper',
        description: 'do it',
        state: { state: 'running' },
      },
      _meta: { dsh: { seq: 9 } },
    })
    view.sendUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hm' } }, 3)
    expect(w.sent.at(-1)).toMatchObject({ sessionId: 'kid', _meta: { dsh: { seq: 3 } } })
    expect(w.bridges).toEqual([{ sessionId: 'kid', target: undefined }])
    view.ended({ stopReason: 'cancelled', seq: 6, endReason: 'cancelled' })
    expect(w.sent.at(-1)?.update).toEqual({
      sessionUpdate: 'subagent_update',
      sessionId: 'kid',
      state: { state: 'idle', stopReason: 'cancelled' },
    })
    view.ended({ stopReason: 'end_turn', seq: 6, endReason: 'error', error: 'boom' })
    expect(updateOf(w.sent.at(-1)?.update, 'subagent_update')?.state).toEqual({
      state: 'idle',
      stopReason: 'error',
      error: { code: -32020, message: 'the model failed: boom' },
    })
  })
})
