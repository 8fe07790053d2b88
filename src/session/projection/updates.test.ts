import { describe, expect, it } from 'vitest'
import { validateAcpDefinition, validateAcpMessage } from '../../../test/support/acp-schema.js'
import { appendAll, cleanTurn, storePerTest } from '../../../test/support/session-store.js'
import type { AnyEventInput, SessionEvent } from '../log/events.js'
import { unansweredCallResult } from './history.js'
import type { SessionUpdateNotification } from './update-types.js'
import { projectUpdates } from './updates.js'
import { isWholeMessage, WHOLE_MESSAGE_CHUNKS } from './whole-messages.js'

const f = storePerTest()

/**
 * Every projected notification must be a valid ACP session/update, as params and as a message (a
 * whole message as ACP v1 has it: one chunk per block).
 */
function expectAcpValid(updates: readonly SessionUpdateNotification[]): void {
  for (const params of updates.flatMap(v1Chunks)) {
    expect(validateAcpDefinition('SessionNotification', params)).toEqual([])
    expect(validateAcpMessage({ jsonrpc: '2.0', method: 'session/update', params })).toEqual([])
  }
}

function v1Chunks(notification: SessionUpdateNotification): unknown[] {
  const { update } = notification
  if (!isWholeMessage(update)) return [notification]
  return update.content.map((content) => ({
    ...notification,
    update: {
      sessionUpdate: WHOLE_MESSAGE_CHUNKS[update.sessionUpdate],
      content,
      messageId: update.messageId,
    },
  }))
}

/** The seq of each update must be the seq of an event that stands for it. */
function expectSeqs(updates: readonly SessionUpdateNotification[], events: readonly SessionEvent[]): void {
  for (const u of updates) expect(events[(u._meta?.dsh.seq ?? 0) - 1]?.seq).toBe(u._meta?.dsh.seq)
}

describe('projectUpdates', () => {
  it('updates: a clean turn replays as whole user, thought and message, tool_call and tool_call_update', () => {
    const s = appendAll(f.sessions.create('s'), cleanTurn(1, 'hello'))
    const updates = projectUpdates('s', s.events())
    expect(updates.map((u) => [u._meta?.dsh.seq, u.update.sessionUpdate])).toEqual([
      [2, 'user_message'],
      [2, 'session_info_update'],
      [4, 'agent_thought'],
      [4, 'agent_message'],
      [5, 'tool_call'],
      [6, 'tool_call_update'],
      [9, 'agent_message'],
    ])
    expect(updates.every((u) => u.sessionId === 's')).toBe(true)
    expect(updates[0]?.update).toEqual({
      sessionUpdate: 'user_message',
      messageId: 'msg_2',
      content: [{ type: 'text', text: 'hello' }],
    })
    expect(updates[1]?.update).toEqual({
      sessionUpdate: 'session_info_update',
      title: 'hello',
      updatedAt: s.at(2)?.time,
    })
    expect(updates[2]?.update).toEqual({
      sessionUpdate: 'agent_thought',
      messageId: 'msg_4',
      content: [{ type: 'text', text: 'hmm' }],
    })
    expect(updates[3]?.update).toMatchObject({ sessionUpdate: 'agent_message', messageId: 'msg_4' })
    expect(updates[4]?.update).toMatchObject({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_1',
      title: 'read',
      status: 'pending',
      rawInput: { path: 'a.txt' },
    })
    expect(updates[5]?.update).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_1',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'contents' } }],
      rawOutput: 'contents',
    })
    expectSeqs(updates, s.events())
    expectAcpValid(updates)
  })

  it('updates: a multi-block user message is one whole user_message (v1 shows a chunk per block)', () => {
    const s = appendAll(f.sessions.create('s'), [
      { type: 'turn/start', data: { turn: 1 } },
      {
        type: 'user/message',
        data: {
          turn: 1,
          content: [
            { type: 'text', text: 'look at' },
            { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
          ],
        },
      },
    ])
    const updates = projectUpdates('s', s.events())
    expect(updates.map((u) => [u._meta?.dsh.seq, u.update.sessionUpdate])).toEqual([
      [2, 'user_message'],
      [2, 'session_info_update'],
    ])
    expectAcpValid(updates)
  })

  it('updates: tool errors are failed tool_call_updates; structured output is shown as JSON', () => {
    const inputs: AnyEventInput[] = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      {
        type: 'tool/call',
        data: {
          turn: 1,
          step: 1,
          callId: 'c',
          name: 'run',
          input: { cmd: 'ls' },
          title: 'Run ls',
          kind: 'execute',
        },
      },
      { type: 'tool/result', data: { turn: 1, step: 1, callId: 'c', output: { exit: 2 }, isError: true } },
    ]
    const updates = projectUpdates('s', appendAll(f.sessions.create('s'), inputs).events())
    expect(updates[0]?.update).toMatchObject({ title: 'Run ls', kind: 'execute' })
    expect(updates[1]?.update).toMatchObject({
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: '{"exit":2}' } }],
      rawOutput: { exit: 2 },
    })
    expectAcpValid(updates)
  })

  it('updates: a cut-short turn/end fails its unanswered calls, at the seq of the turn/end', () => {
    const s = appendAll(f.sessions.create('s'), [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'a', name: 'x', input: null } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'b', name: 'y', input: null } },
      { type: 'tool/result', data: { turn: 1, step: 1, callId: 'a', output: 'ok' } },
      { type: 'turn/end', data: { turn: 1, reason: 'error' } },
    ])
    const updates = projectUpdates('s', s.events())
    const last = updates[updates.length - 1]
    expect(updates).toHaveLength(4)
    expect(last?._meta?.dsh.seq).toBe(6)
    expect(last?.update).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'b',
      status: 'failed',
      rawOutput: unansweredCallResult('error'),
    })
    expectAcpValid(updates)
  })

  it('updates: a title is a session_info_update with the event time; notes and plugin events send nothing', () => {
    f.tick(5000)
    const s = appendAll(f.sessions.create('s'), [
      { type: 'context/note', data: { text: 'n' } },
      { type: 'metrics:sample', data: { ms: 1 } },
      { type: 'session/title', data: { title: 'Fixing the build' } },
    ])
    const updates = projectUpdates('s', s.events())
    expect(updates).toEqual([
      {
        sessionId: 's',
        update: {
          sessionUpdate: 'session_info_update',
          title: 'Fixing the build',
          updatedAt: '2026-01-01T00:00:05.000Z',
        },
        _meta: { dsh: { seq: 3 } },
      },
    ])
    expectAcpValid(updates)
  })

  it('updates: an empty assistant message sends nothing; an unknown tool kind is still valid ACP', () => {
    const s = appendAll(f.sessions.create('s'), [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'assistant/message', data: { turn: 1, step: 1, content: '' } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'c', name: 'n', input: 1, kind: 'teleport' } },
    ])
    const updates = projectUpdates('s', s.events())
    expect(updates.map((u) => u.update.sessionUpdate)).toEqual(['tool_call'])
    expect(updates[0]?.update).toMatchObject({ kind: 'other' })
    expectAcpValid(updates)
  })

  it('updates: a registered subagent:spawned on an open call shows progress; a malformed one or another plugin event shows nothing', () => {
    const spawned = { turn: 1, callId: 'c', sessionId: 'child', title: 'Child', task: 'do it' }
    const s = appendAll(f.sessions.create('s'), [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'c', name: 'delegate', input: {} } },
      { type: 'subagent:spawned', data: { ...spawned, callId: 7 } },
      { type: 'subagent:spawned', data: { ...spawned, extra: true } },
      { type: 'metrics:sample', data: { callId: 'c' } },
      { type: 'subagent:spawned', data: spawned },
    ])
    const updates = projectUpdates('s', s.events())
    expect(updates.map((u) => [u._meta?.dsh.seq, u.update.sessionUpdate])).toEqual([
      [3, 'tool_call'],
      [7, 'tool_call_update'],
    ])
    expect(updates[1]?.update).toMatchObject({
      status: 'in_progress',
      title: 'Subagent: Child',
      _meta: { dsh: { subagent: { sessionId: 'child' } } },
    })
    expectAcpValid(updates)
  })

  it('updates: the helper rejects a malformed update (the schema check can fail)', () => {
    const bad = { sessionId: 's', update: { sessionUpdate: 'tool_call' }, _meta: { dsh: { seq: 1 } } }
    expect(validateAcpDefinition('SessionNotification', bad)).not.toEqual([])
  })
})
