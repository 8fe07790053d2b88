import { describe, expect, it } from 'vitest'
import { updateOf } from '../../../test/support/update-of.js'
import { idleState, subagentStarted, subagentStateUpdate } from '../../agent/subagents/subagent-updates.js'
import type { ClientBridge, SubagentLink, TurnOutcome } from '../../agent/types.js'
import type { SessionUpdateNotification, WireNotification } from '../../session/index.js'
import type { PermissionTarget } from '../client/client-bridge.js'
import type { ClientState } from '../method.js'
import { clientFeatures } from './client-features.js'
import { ClientView } from './client-view.js'
import { openSubagentChannel } from './subagent-view.js'
import { acpV1Renderer } from './v1/renderer.js'

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

/**
 * A call whose notifications go through the client's view onto `sent`; `open` opens the channel
 * as a delegation does (its canonical start on the parent first), `end` ends it.
 */
function wire(state: ClientState | undefined) {
  const sent: WireNotification[] = []
  const bridges: { sessionId: string; target: PermissionTarget | undefined }[] = []
  const call = {
    view: new ClientView(state),
    notify: async (n: SessionUpdateNotification) => {
      sent.push(...acpV1Renderer.render(n, call.view.features))
    },
    clientBridge: (sessionId: string, target?: PermissionTarget): ClientBridge => {
      bridges.push({ sessionId, target })
      return {}
    },
  }
  const onParent = (update: SessionUpdateNotification['update']) =>
    void call.notify({ sessionId: LINK.parentSessionId, update, _meta: { dsh: { seq: LINK.seq } } })
  return {
    sent,
    bridges,
    open: () => {
      for (const update of subagentStarted(LINK)) onParent(update)
      return openSubagentChannel(call, LINK)
    },
    end: (outcome: TurnOutcome) => onParent(subagentStateUpdate(LINK.sessionId, idleState(outcome))),
  }
}

describe('the subagents client capability', () => {
  it('is supported only as an object ({}), never as omitted, null or another value', () => {
    expect(clientFeatures(client({ subagents: {} })).subagents).toBe(true)
    expect(clientFeatures(client({ subagents: { _meta: {} } })).subagents).toBe(true)
    for (const value of [undefined, null, true, 1, 'yes', []]) {
      expect(clientFeatures(client({ subagents: value })).subagents).toBe(false)
    }
    expect(clientFeatures(undefined).subagents).toBe(false)
  })
})

describe('openSubagentChannel', () => {
  it('without the capability: nothing is addressed to the child; progress goes to the parent’s call', () => {
    const w = wire(client({}))
    const view = w.open()
    view.sendUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'do it' } }, 2)
    view.sendUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hm' } }, 3)
    view.sendUpdate({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.txt' }, 4)
    view.sendUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed' }, 5)
    w.end({ stopReason: 'end_turn', seq: 6, endReason: 'completed' })
    expect(w.sent.every((n) => n.sessionId === 'dad' && n._meta?.dsh.seq === 9)).toBe(true)
    expect(JSON.stringify(w.sent)).not.toContain('subagent_update')
    const firstText = (n: WireNotification) => {
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
    const view = w.open()
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
    w.end({ stopReason: 'cancelled', seq: 6, endReason: 'cancelled' })
    expect(w.sent.at(-1)?.update).toEqual({
      sessionUpdate: 'subagent_update',
      sessionId: 'kid',
      state: { state: 'idle', stopReason: 'cancelled' },
    })
    w.end({ stopReason: 'end_turn', seq: 6, endReason: 'error', error: 'boom' })
    expect(updateOf(w.sent.at(-1)?.update, 'subagent_update')?.state).toEqual({
      state: 'idle',
      stopReason: 'error',
      error: { code: -32020, message: 'the model failed: boom' },
    })
  })
})
