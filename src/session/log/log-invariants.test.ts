import { describe, expect, it } from 'vitest'
import { appendAll, cleanTurn, storePerTest, thrown } from '../../../test/support/session-store.js'
import { SessionError, SessionErrorCode } from '../errors.js'
import type { AnyEventInput } from './events.js'

const f = storePerTest()

const text = (t: string) => [{ type: 'text', text: t }]

/** Appends `prefix`, then expects `bad` to throw `code` and leave the log exactly as it was. */
function refused(prefix: readonly AnyEventInput[], bad: unknown, code: string): SessionError {
  const s = appendAll(f.sessions.create(), prefix)
  const before = s.events()
  const state = { lastSeq: s.lastSeq, openTurn: s.openTurn, openStep: s.openStep, calls: s.unansweredCalls }
  const error = thrown(() => s.append(bad as AnyEventInput))
  expect(error).toBeInstanceOf(SessionError)
  expect((error as SessionError).code).toBe(code)
  expect(s.events()).toEqual(before)
  expect({
    lastSeq: s.lastSeq,
    openTurn: s.openTurn,
    openStep: s.openStep,
    calls: s.unansweredCalls,
  }).toEqual(state)
  return error as SessionError
}

const V = SessionErrorCode.INVARIANT_VIOLATION
const turn1: AnyEventInput = { type: 'turn/start', data: { turn: 1 } }
const step1: AnyEventInput = { type: 'step/start', data: { turn: 1, step: 1 } }
const call = (callId: string): AnyEventInput => ({
  type: 'tool/call',
  data: { turn: 1, step: 1, callId, name: 'grep', input: { q: 'x' } },
})
const result = (callId: string): AnyEventInput => ({
  type: 'tool/result',
  data: { turn: 1, step: 1, callId, output: 'found' },
})

describe('log invariants: a violating append throws a typed SessionError and leaves the log unchanged', () => {
  it('seq starts at 1 and grows by exactly 1; the store stamps seq and time', () => {
    const s = appendAll(f.sessions.create(), cleanTurn(1))
    expect(s.events().map((e) => e.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1))
    expect(s.at(1)?.time).toBe('2026-01-01T00:00:00.000Z')
  })

  it('turns do not nest', () => {
    refused([turn1], { type: 'turn/start', data: { turn: 2 } }, V)
  })

  it('turn numbers count up from 1 by 1', () => {
    refused([], { type: 'turn/start', data: { turn: 2 } }, V)
    refused(cleanTurn(1), { type: 'turn/start', data: { turn: 1 } }, V)
    refused(cleanTurn(1), { type: 'turn/start', data: { turn: 3 } }, V)
  })

  it('user messages and steps live inside the open turn, naming it', () => {
    refused([], { type: 'user/message', data: { turn: 1, content: text('hi') } }, V)
    refused([], step1, V)
    refused([turn1], { type: 'user/message', data: { turn: 2, content: text('hi') } }, V)
    refused([turn1], { type: 'step/start', data: { turn: 2, step: 1 } }, V)
    refused(cleanTurn(1), { type: 'step/start', data: { turn: 1, step: 3 } }, V)
  })

  it('steps do not nest and count up from 1', () => {
    refused([turn1, step1], { type: 'step/start', data: { turn: 1, step: 2 } }, V)
    refused([turn1], { type: 'step/start', data: { turn: 1, step: 2 } }, V)
    refused([turn1, step1, { type: 'step/end', data: { turn: 1, step: 1 } }], step1, V)
  })

  it('assistant messages and tool calls live inside the open step', () => {
    refused([turn1], { type: 'assistant/message', data: { turn: 1, step: 1, content: 'x' } }, V)
    refused([turn1], call('a'), V)
    refused([turn1, step1], { type: 'assistant/message', data: { turn: 1, step: 2, content: 'x' } }, V)
    refused([turn1, step1], { type: 'user/message', data: { turn: 1, content: text('mid-step') } }, V)
  })

  it('tool call ids are unique within a turn', () => {
    refused([turn1, step1, call('a'), result('a')], call('a'), V)
  })

  it('tool results answer an open tool call', () => {
    refused([turn1, step1], result('ghost'), V)
    refused([turn1, step1, call('a'), result('a')], result('a'), V)
  })

  it('step/end with unanswered tool calls is refused, naming them', () => {
    const error = refused([turn1, step1, call('a'), call('b'), result('b')], step(1), V)
    expect(error.data).toMatchObject({ callIds: ['a'] })
  })

  it('turn/end with a clean reason requires no open step and no unanswered call', () => {
    for (const reason of ['completed', 'max-tokens', 'max-turn-requests', 'refusal']) {
      refused([turn1, step1], end(reason), V)
      refused([turn1, step1, call('a')], end(reason), V)
    }
    refused([], end('completed'), V)
    refused([turn1], { type: 'turn/end', data: { turn: 2, reason: 'completed' } }, V)
  })

  it('turn/end with a cut-short reason may close an open step and unanswered calls', () => {
    for (const reason of ['cancelled', 'error', 'interrupted', 'disposed', 'some-future-reason']) {
      const s = appendAll(f.sessions.create(), [turn1, step1, call('a'), end(reason)])
      expect(s.openTurn).toBeUndefined()
      expect(s.openStep).toBeUndefined()
      expect(s.unansweredCalls).toEqual([])
      s.append({ type: 'turn/start', data: { turn: 2 } })
    }
  })

  it('standalone and ns:name plugin events may stand anywhere', () => {
    const anywhere: AnyEventInput[] = [
      { type: 'session/title', data: { title: 't' } },
      { type: 'context/note', data: { text: 'n' } },
      { type: 'metrics:sample', data: { ms: 3 } },
    ]
    const s = appendAll(f.sessions.create(), [
      ...anywhere,
      turn1,
      ...anywhere,
      step1,
      ...anywhere,
      call('a'),
      ...anywhere,
      result('a'),
      step(1),
      end('completed'),
      ...anywhere,
    ])
    expect(s.lastSeq).toBe(21)
  })

  it('unknown core-looking types, malformed plugin types and malformed data are INVALID_EVENT', () => {
    const E = SessionErrorCode.INVALID_EVENT
    refused([], { type: 'turn/begin', data: {} }, E)
    refused([], { type: 'Metrics:sample', data: {} }, E)
    refused([], { type: 'metrics:', data: {} }, E)
    refused([], { type: 'turn/start', data: { turn: '1' } }, E)
    refused([], { type: 'turn/start', data: [1] }, E)
    refused([], { type: 'metrics:x' }, E)
    refused([turn1], { type: 'user/message', data: { turn: 1, content: 'not blocks' } }, E)
    refused(
      [turn1, step1],
      { type: 'tool/call', data: { turn: 1, step: 1, callId: '', name: 'x', input: 1 } },
      E,
    )
    refused([], null, E)
    refused([], 'turn/start', E)
  })
})

describe('the log cannot be changed by anyone', () => {
  it('mutating the object passed to append never changes the log', () => {
    const s = f.sessions.create()
    const data = { turn: 1, content: [{ type: 'text' as const, text: 'original' }] }
    s.append(turn1)
    s.append({ type: 'user/message', data })
    data.content[0] = { type: 'text', text: 'changed' }
    data.turn = 9
    expect(s.at(2)?.data).toEqual({ turn: 1, content: [{ type: 'text', text: 'original' }] })
  })

  it('events handed out are deeply frozen: mutating them throws and never changes the log', () => {
    const s = appendAll(f.sessions.create(), cleanTurn(1))
    const before = JSON.stringify(s.events())
    const event = s.events()[1] as unknown as { seq: number; data: { content: { text: string }[] } }
    expect(Object.isFrozen(event)).toBe(true)
    expect(() => {
      event.seq = 99
    }).toThrow(TypeError)
    expect(() => {
      ;(event.data.content[0] as { text: string }).text = 'x'
    }).toThrow(TypeError)
    const returned = s.append({ type: 'metrics:m', data: { nested: { list: [1, 2] } } }) as unknown as {
      data: { nested: { list: number[] } }
    }
    expect(() => returned.data.nested.list.push(3)).toThrow(TypeError)
    expect(JSON.stringify(s.events().slice(0, 11))).toBe(before)
  })

  it('the array from events() is the caller’s own copy', () => {
    const s = appendAll(f.sessions.create(), cleanTurn(1))
    const events = s.events()
    events.pop()
    events.length = 0
    expect(s.length).toBe(11)
  })

  it('data that is checked is the data that is stored (a getter cannot slip malformed data in)', () => {
    for (let validReads = 0; validReads <= 4; validReads++) {
      const s = appendAll(f.sessions.create(), [turn1])
      let reads = 0
      const data = {
        turn: 1,
        get content() {
          return ++reads <= validReads ? text('checked') : 'not content blocks'
        },
      }
      let outcome: unknown
      try {
        outcome = s.append({ type: 'user/message', data } as unknown as AnyEventInput).data
      } catch (error) {
        outcome = (error as SessionError).code
      }
      expect([SessionErrorCode.INVALID_EVENT, { turn: 1, content: text('checked') }]).toContainEqual(outcome)
      expect(s.lastSeq).toBe(outcome === SessionErrorCode.INVALID_EVENT ? 1 : 2)
    }
  })

  it('non-JSON data is refused: Date, Map, function, NaN, Infinity, bigint, cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const bad: unknown[] = [
      { when: new Date(0) },
      { map: new Map() },
      { fn: () => 1 },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { big: 1n },
      { sym: Symbol('s') },
      cyclic,
      { list: [1, new Set([1])] },
    ]
    for (const data of bad) {
      const error = refused([], { type: 'plugin:data', data }, SessionErrorCode.INVALID_EVENT)
      expect(error.message).toMatch(/data/)
    }
  })

  it('JSON data that is repeated but not cyclic is accepted', () => {
    const shared = { x: 1 }
    const s = f.sessions.create()
    s.append({ type: 'plugin:data', data: { a: shared, b: shared } })
    expect(s.at(1)?.data).toEqual({ a: { x: 1 }, b: { x: 1 } })
  })
})

function step(n: number): AnyEventInput {
  return { type: 'step/end', data: { turn: 1, step: n } }
}

function end(reason: string): AnyEventInput {
  return { type: 'turn/end', data: { turn: 1, reason } }
}
