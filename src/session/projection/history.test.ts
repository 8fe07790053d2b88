import { describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, storePerTest } from '../../../test/support/session-store.js'
import type { AnyEventInput } from '../log/events.js'
import { projectHistory, unansweredCallResult } from './history.js'

const f = storePerTest()

const text = (t: string) => [{ type: 'text' as const, text: t }]

describe('projectHistory', () => {
  it('history: per step one assistant message (text, thought, tool calls) then one tool message per call', () => {
    const s = appendAll(f.sessions.create(), cleanTurn(1, 'hello'))
    expect(projectHistory(s.events())).toEqual([
      { role: 'user', content: text('hello') },
      {
        role: 'assistant',
        content: 'let me look',
        thought: 'hmm',
        toolCalls: [{ id: 'call_1', name: 'read', input: { path: 'a.txt' } }],
      },
      { role: 'tool', callId: 'call_1', name: 'read', content: 'contents', isError: false },
      { role: 'assistant', content: 'answer 1', toolCalls: [] },
    ])
  })

  it('history: several assistant chunks of a step join into one message; tool messages follow call order', () => {
    const inputs: AnyEventInput[] = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'assistant/message', data: { turn: 1, step: 1, content: 'a', thought: 't1' } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'x', name: 'one', input: 1 } },
      { type: 'assistant/message', data: { turn: 1, step: 1, content: 'b', thought: 't2' } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'y', name: 'two', input: 2 } },
      { type: 'tool/result', data: { turn: 1, step: 1, callId: 'y', output: { ok: false }, isError: true } },
      { type: 'tool/result', data: { turn: 1, step: 1, callId: 'x', output: [1, 2] } },
      { type: 'step/end', data: { turn: 1, step: 1 } },
      { type: 'turn/end', data: { turn: 1, reason: 'completed' } },
    ]
    const s = appendAll(f.sessions.create(), inputs)
    expect(projectHistory(s.events())).toEqual([
      {
        role: 'assistant',
        content: 'ab',
        thought: 't1t2',
        toolCalls: [
          { id: 'x', name: 'one', input: 1 },
          { id: 'y', name: 'two', input: 2 },
        ],
      },
      { role: 'tool', callId: 'x', name: 'one', content: [1, 2], isError: false },
      { role: 'tool', callId: 'y', name: 'two', content: { ok: false }, isError: true },
    ])
  })

  it('history: calls left unanswered by a cut-short turn get synthetic error results', () => {
    const s = appendAll(f.sessions.create(), [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'done', name: 'a', input: null } },
      { type: 'tool/call', data: { turn: 1, step: 1, callId: 'lost', name: 'b', input: null } },
      { type: 'tool/result', data: { turn: 1, step: 1, callId: 'done', output: 'ok' } },
      { type: 'turn/end', data: { turn: 1, reason: 'cancelled' } },
    ])
    const history = projectHistory(s.events())
    expect(history.slice(1)).toEqual([
      { role: 'tool', callId: 'done', name: 'a', content: 'ok', isError: false },
      { role: 'tool', callId: 'lost', name: 'b', content: unansweredCallResult('cancelled'), isError: true },
    ])
    expect(unansweredCallResult('cancelled')).toMatch(/cancelled/)
  })

  it('history: context notes become system messages; titles and plugin events are not shown to the model', () => {
    const s = appendAll(f.sessions.create(), [
      { type: 'context/note', data: { text: 'the repo uses pnpm' } },
      { type: 'session/title', data: { title: 'T' } },
      { type: 'metrics:sample', data: { ms: 1 } },
      ...cleanTurn(1),
    ])
    const history = projectHistory(s.events())
    expect(history[0]).toEqual({ role: 'system', content: 'the repo uses pnpm' })
    expect(history[1]).toMatchObject({ role: 'user' })
    expect(history).toHaveLength(5)
  })

  it('history: an empty step adds no assistant message; an open step is shown as far as it goes', () => {
    const s = appendAll(f.sessions.create(), [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'user/message', data: { turn: 1, content: text('q') } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'step/end', data: { turn: 1, step: 1 } },
      { type: 'step/start', data: { turn: 1, step: 2 } },
      { type: 'assistant/message', data: { turn: 1, step: 2, content: 'partial' } },
    ])
    expect(projectHistory(s.events())).toEqual([
      { role: 'user', content: text('q') },
      { role: 'assistant', content: 'partial', toolCalls: [] },
    ])
  })

  it('history: is pure (same log, same result; the log is not touched)', () => {
    const s = appendAll(f.sessions.create(), [...cleanTurn(1), ...cleanTurn(2)])
    const events = s.events()
    expect(projectHistory(events)).toEqual(projectHistory(s.events()))
    expect(events).toEqual(s.events())
  })
})
