import { describe, expect, it } from 'vitest'
import type { LiveEntry } from '../engine/live-wire.js'
import { classify, type ScriptLine } from '../script.js'
import { compareConnection } from './compare.js'

const update = (sessionId: string, text: string) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
})

/** Transcript lines 1..n, all from the agent, and their normalized forms (here: as they are). */
function recordedOf(messages: unknown[]) {
  const recordedLines: ScriptLine[] = messages.map((msg, i) => ({
    line: i + 1,
    dir: 'out',
    msg,
    ...classify(msg),
  }))
  const recorded = new Map(recordedLines.map((l) => [l.line, l.msg]))
  return { recordedLines, recorded }
}

const liveOf = (messages: unknown[]): LiveEntry[] =>
  messages.map((msg) => ({ connection: 0, dir: 'out', msg, normalized: msg, ms: 0, ...classify(msg) }))

describe('compareConnection', () => {
  const recorded = [update('a', 'a1'), update('b', 'b1'), update('a', 'a2'), update('b', 'b2')]
  const interleaved = [update('a', 'a1'), update('a', 'a2'), update('b', 'b1'), update('b', 'b2')]

  it('by default, a different interleaving of sessions is a difference', () => {
    const { differences } = compareConnection({
      connection: 0,
      ...recordedOf(recorded),
      live: liveOf(interleaved),
      looseOrder: false,
    })
    // A message that moved is missing where it was and extra where it came.
    expect(differences.map((d) => d.kind).sort()).toEqual(['extra', 'missing'])
  })

  it('with looseOrder, only the order within each session counts', () => {
    const loose = compareConnection({
      connection: 0,
      ...recordedOf(recorded),
      live: liveOf(interleaved),
      looseOrder: true,
    })
    expect(loose.differences).toEqual([])
    const swapped = [update('a', 'a2'), update('b', 'b1'), update('a', 'a1'), update('b', 'b2')]
    const reordered = compareConnection({
      connection: 0,
      ...recordedOf(recorded),
      live: liveOf(swapped),
      looseOrder: true,
    })
    expect(reordered.differences.map((d) => [d.kind, d.line ?? d.afterLine])).toEqual([
      ['missing', 1],
      ['extra', 3],
    ])
  })

  it('pairs a changed message with its counterpart, and places a missing and an extra one', () => {
    const live = [update('a', 'a1'), update('b', 'B1'), update('b', 'b2'), { jsonrpc: '2.0', method: 'x/y' }]
    const { differences, placements } = compareConnection({
      connection: 0,
      ...recordedOf(recorded),
      live: liveOf(live),
      looseOrder: false,
    })
    expect(differences).toEqual([
      {
        kind: 'changed',
        connection: 0,
        line: 2,
        what: 'session/update agent_message_chunk (b)',
        fields: [{ path: '/params/update/content/text', expected: 'b1', actual: 'B1' }],
      },
      {
        kind: 'missing',
        connection: 0,
        line: 3,
        what: 'session/update agent_message_chunk (a)',
        expected: update('a', 'a2'),
      },
      { kind: 'extra', connection: 0, afterLine: 4, what: 'x/y', actual: { jsonrpc: '2.0', method: 'x/y' } },
    ])
    expect([...placements.values()]).toEqual([
      { line: 1, afterLine: 1 },
      { line: 2, afterLine: 2 },
      { line: 4, afterLine: 4 },
      { afterLine: 4 },
    ])
  })
})
