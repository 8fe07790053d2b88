import { describe, expect, it } from 'vitest'
import {
  type SessionEvent,
  type SessionUpdateNotification,
  storedLineOf,
  withStoredLine,
} from '../../../session/index.js'
import { ReplayTurnEnds } from './replay-turn-ends.js'

const TIME = '2026-01-01T00:00:00.000Z'
let seq = 0
const ev = (type: string, data: Record<string, unknown>) =>
  ({ seq: ++seq, type, time: TIME, data }) as SessionEvent
const up = (event: SessionEvent, text: string): SessionUpdateNotification => ({
  sessionId: 's',
  update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  _meta: { dsh: { seq: event.seq } },
})

function run(steps: ReadonlyArray<[SessionEvent, string[]]>) {
  const sent: SessionUpdateNotification[] = []
  const ends = new ReplayTurnEnds((_event, updates) => {
    sent.push(...updates)
    return undefined
  })
  for (const [event, texts] of steps)
    ends.push(
      event,
      texts.map((t) => up(event, t)),
    )
  ends.flush()
  return sent.map((n) => [(n.update as { content: { text: string } }).content.text, n._meta?.dsh.turnEnd])
}

describe('ReplayTurnEnds', () => {
  it("marks each turn's last update, keeps the order, and leaves an open turn unmarked", () => {
    seq = 0
    const end1 = ev('turn/end', { turn: 1, reason: 'cancelled' })
    const steps: [SessionEvent, string[]][] = [
      [ev('turn/start', { turn: 1 }), []],
      [ev('user/message', { turn: 1 }), ['u1']],
      [ev('assistant/message', { turn: 1 }), ['a', 'b']],
      [ev('step/end', { turn: 1 }), []],
      [end1, []],
      [ev('session/title', {}), ['title']],
      [ev('turn/start', { turn: 2 }), []],
      [ev('user/message', { turn: 2 }), ['u2']],
    ]
    const end2 = ev('turn/end', { turn: 2, reason: 'error', message: 'boom' })
    steps.push(
      [end2, ['failed call']],
      [ev('turn/start', { turn: 3 }), []],
      [ev('user/message', { turn: 3 }), ['u3']],
    )
    expect(run(steps)).toEqual([
      ['u1', undefined],
      ['a', undefined],
      ['b', { seq: end1.seq, reason: 'cancelled', stopReason: 'cancelled' }],
      ['title', undefined],
      ['u2', undefined],
      ['failed call', { seq: end2.seq, reason: 'error', error: 'boom' }],
      ['u3', undefined],
    ])
  })

  it('an interrupted turn has no stop reason, only its reason', () => {
    seq = 0
    const end = ev('turn/end', { turn: 1, reason: 'interrupted' })
    expect(
      run([
        [ev('turn/start', { turn: 1 }), []],
        [ev('user/message', { turn: 1 }), ['u']],
        [end, []],
      ]),
    ).toEqual([['u', { seq: end.seq, reason: 'interrupted' }]])
  })

  it("lends a held event's long stored line again while its updates are sent (so they can be spliced from it)", () => {
    seq = 0
    const lines: Array<string | undefined> = []
    const ends = new ReplayTurnEnds((event) => {
      const line = storedLineOf(event)
      lines.push(line && Buffer.from(line).toString('utf8'))
      return undefined
    })
    const answer = ev('assistant/message', { turn: 1 })
    const long = Buffer.from('x'.repeat(5000))
    const scratch = Buffer.from(long)
    ends.push(ev('turn/start', { turn: 1 }), [])
    withStoredLine(answer, scratch, () => ends.push(answer, [up(answer, 'a')]))
    scratch.fill(0) // the reader reuses its chunk
    ends.push(ev('turn/end', { turn: 1, reason: 'completed' }), [])
    expect(lines.at(-1)).toBe(long.toString('utf8'))
  })
})
