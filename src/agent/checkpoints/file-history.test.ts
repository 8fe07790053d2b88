import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionHeader } from '../../session/index.js'
import { CHECKPOINT_FILE_EVENT } from './checkpoint-event.js'
import { fileHistory, type VisitSession } from './file-history.js'

const H = (n: string) => `sha256:${n.repeat(64)}`
let seq = 0
const event = (type: string, data: Record<string, unknown>): SessionEvent =>
  ({ seq: ++seq, type, time: '2026-01-01T00:00:00.000Z', data }) as unknown as SessionEvent
const change = (path: string, before: string, after: string, callId = 'c') =>
  event(CHECKPOINT_FILE_EVENT, { turn: 1, callId, path, before, after })
const call = (name: string) => event('tool/call', { turn: 1, step: 1, callId: `id_${seq}`, name, input: {} })

/** Stored subagent sessions: their header (seedLength) and events, read as visitEvents reads them. */
function store(sessions: Record<string, { seedLength: number; events: SessionEvent[] }>): VisitSession {
  return async (id, from, visit) => {
    const stored = sessions[id]
    if (!stored) throw new Error(`session ${id} not found`)
    const header = { id, seedLength: stored.seedLength } as unknown as SessionHeader
    for (const e of stored.events) if (e.seq >= from && !visit(e, header)) break
    return header
  }
}

describe('fileHistory', () => {
  it('per path: the first change and the last, in order of first change; commands noticed', async () => {
    const events = [change('/w/a', 'absent', H('1')), call('read_text_file'), change('/w/b', H('2'), H('3'))]
    events.push(change('/w/a', H('1'), H('4')))
    const history = await fileHistory(events, undefined)
    expect([...history.files.keys()]).toEqual(['/w/a', '/w/b'])
    expect(history.files.get('/w/a')).toMatchObject({ first: { before: 'absent' }, last: { after: H('4') } })
    expect(history.commandsRan).toBe(false)
    expect((await fileHistory([call('run_command')], undefined)).commandsRan).toBe(true)
    expect((await fileHistory([call('mcp__srv__write')], undefined)).commandsRan).toBe(true)
  })

  it("a subagent's own changes count, in the place of the call that spawned it, and its commands too", async () => {
    const seed = change('/w/seeded', 'absent', H('9'))
    const childOwn = [change('/w/a', H('1'), H('2'), 'child'), call('run_command')]
    // The child's own log: its seed (the parent's prefix) first, numbered from 1.
    const childLog = [seed, ...childOwn].map((e, i) => ({ ...e, seq: i + 1 }))
    const visit = store({ ses_child: { seedLength: 1, events: childLog } })
    const events = [
      change('/w/a', 'absent', H('1')),
      event('subagent:spawned', { turn: 1, callId: 'd', sessionId: 'ses_child', title: 't', task: 'x' }),
      change('/w/a', H('2'), H('3')),
    ]
    const history = await fileHistory(events, visit)
    expect([...history.files.keys()]).toEqual(['/w/a'])
    expect(history.files.get('/w/a')).toMatchObject({ first: { before: 'absent' }, last: { after: H('3') } })
    expect(history.commandsRan).toBe(true)
    const onlyChild = await fileHistory(events.slice(1, 2), visit)
    expect(onlyChild.files.get('/w/a')).toMatchObject({ first: { callId: 'child', before: H('1') } })
    expect(onlyChild.files.has('/w/seeded')).toBe(false)
  })

  it('a subagent whose session is gone counts as having run commands (its effects are unknown)', async () => {
    const events = [
      event('subagent:spawned', { turn: 1, callId: 'd', sessionId: 'gone', title: 't', task: 'x' }),
    ]
    expect((await fileHistory(events, store({}))).commandsRan).toBe(true)
  })
})
