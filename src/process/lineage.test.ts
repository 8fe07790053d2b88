import { describe, expect, it } from 'vitest'
import type { SessionSummary } from '../session/index.js'
import { renderLineage } from './lineage.js'

const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`
const summary = (id: string, n: number, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  sessionId: id,
  cwd: '/p',
  createdAt: at(n),
  updatedAt: at(n),
  live: false,
  ...extra,
})

describe('renderLineage', () => {
  it('shows a subagent under its parent with the tool call that spawned it', () => {
    const lines = renderLineage([
      summary('kid', 2, {
        parentSession: 'dad',
        seedLength: 6,
        title: 'Scribe',
        subagent: { turn: 2, callId: 'call_d' },
      }),
      summary('fork', 1, { parentSession: 'dad', seedLength: 6 }),
      summary('dad', 0),
    ])
    expect(lines).toEqual([
      `dad  updated ${at(0)}`,
      `├─ fork  forked at seq 6  updated ${at(1)}`,
      `└─ kid  "Scribe"  forked at seq 6  subagent of call call_d (turn 2)  updated ${at(2)}`,
    ])
  })
})
