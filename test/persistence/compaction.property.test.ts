import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  HistoryProjector,
  projectHistory,
  projectUpdates,
  type Session,
  type SessionEvent,
} from '../../src/session/index.js'
import { boundaryStatus } from '../../src/session/log/log-state.js'
import { type DiskStoreFixture, startStore, tempDir } from '../support/session-store.js'

/**
 * Fork, load and replay stay exact on both sides of a compaction: random sessions of turns (with
 * tool calls, some cut short, some slash commands) and compactions (between turns, or inside a turn
 * before its first step, each summarizing through the boundary before it). For every closed
 * boundary, a fork's model history and replay equal the parent's projections of the same prefix,
 * with and without the compaction wire variant; the model view after a compaction is its summary
 * then the events after the seq it summarizes through; the incremental projector agrees with a
 * projection from scratch at every length; and a session read back from disk projects the same.
 */

type Move =
  | {
      readonly kind: 'turn'
      readonly text: string
      readonly tool: boolean
      readonly cut: boolean
      readonly compactFirst: boolean
    }
  | { readonly kind: 'command' }
  | { readonly kind: 'compact' }

const move: fc.Arbitrary<Move> = fc.oneof(
  fc.record({
    kind: fc.constant('turn' as const),
    text: fc.string({ minLength: 1, maxLength: 6 }),
    tool: fc.boolean(),
    cut: fc.boolean(),
    compactFirst: fc.boolean(),
  }),
  fc.constant({ kind: 'command' as const }),
  fc.constant({ kind: 'compact' as const }),
)

let compactions = 0
function appendCompaction(session: Session, through: number): void {
  compactions++
  session.append({
    type: 'context/compaction',
    data: {
      compactionId: `c${compactions}`,
      summary: `summary ${compactions} through ${through}`,
      through,
      model: 'm',
      tokensBefore: 100,
      tokensAfter: 10,
    },
  })
}

function play(session: Session, moves: readonly Move[]): void {
  for (const m of moves) {
    if (m.kind === 'compact') {
      if (session.lastSeq > 0) appendCompaction(session, session.lastSeq)
      continue
    }
    const turn = session.lastTurn + 1
    const start = session.append({
      type: 'turn/start',
      data: { turn, ...(m.kind === 'command' && { command: 'compact' }) },
    })
    const text = m.kind === 'turn' ? m.text : '/compact'
    session.append({ type: 'user/message', data: { turn, content: [{ type: 'text', text }] } })
    if (m.kind === 'turn' && m.compactFirst && start.seq > 1) appendCompaction(session, start.seq - 1)
    if (m.kind === 'command' && start.seq > 1) appendCompaction(session, start.seq - 1)
    session.append({ type: 'step/start', data: { turn, step: 1 } })
    session.append({ type: 'assistant/message', data: { turn, step: 1, content: `a${turn}` } })
    if (m.kind === 'turn' && m.tool) {
      session.append({
        type: 'tool/call',
        data: { turn, step: 1, callId: `k${turn}`, name: 'read', input: {} },
      })
      if (!m.cut)
        session.append({ type: 'tool/result', data: { turn, step: 1, callId: `k${turn}`, output: 'o' } })
    }
    if (m.kind === 'turn' && m.cut) {
      session.append({ type: 'turn/end', data: { turn, reason: 'cancelled' } })
      continue
    }
    session.append({ type: 'step/end', data: { turn, step: 1 } })
    session.append({ type: 'turn/end', data: { turn, reason: 'completed' } })
  }
}

/** The model view the design describes, written without the projector's incremental path. */
function expectedView(prefix: readonly SessionEvent[]) {
  const last = prefix.findLast((e) => e.type === 'context/compaction')
  if (last?.type !== 'context/compaction')
    return projectHistory(prefix.filter((e) => e.type !== 'context/compaction'))
  const { through, summary } = last.data
  let users = 0
  let inCommand = false
  for (const e of prefix.slice(0, through)) {
    if (e.type === 'turn/start') inCommand = e.data.command !== undefined
    if (e.type === 'user/message' && !inCommand) users++
  }
  const rest = projectHistory(prefix.slice(through).filter((e) => e.type !== 'context/compaction'))
  return [{ role: 'summary', content: summary, userMessages: users }, ...rest]
}

let disk: ReturnType<typeof tempDir>
let store: DiskStoreFixture
beforeAll(async () => {
  disk = tempDir('dsh-compaction-prop-')
  store = await startStore(disk.dir)
})
afterAll(async () => {
  await store.stop()
  disk.cleanup()
})

describe('compaction keeps fork, load and replay exact (property)', () => {
  it('at every closed boundary, before and after each compaction', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(move, { minLength: 1, maxLength: 10 }), async (moves) => {
        const session = store.sessions.create(undefined, { meta: { cwd: '/w' } })
        play(session, moves)
        const events = session.events()
        const projector = new HistoryProjector()
        for (let b = 0; b <= events.length; b++) {
          const prefix = events.slice(0, b)
          // The incremental projector, as a live session uses it, agrees with the design's view.
          expect(projector.project(prefix)).toEqual(expectedView(prefix))
          if (boundaryStatus(session.turnSpans(), b).open !== undefined) continue
          const child = store.sessions.fork(session, b)
          expect(projectHistory(child.events())).toEqual(expectedView(prefix))
          const strip = (sessionId: string, list: readonly SessionEvent[]) =>
            projectUpdates(sessionId, list).map((n) => n.update)
          expect(strip(child.id, child.events())).toEqual(strip(session.id, prefix))
          await store.sessions.delete(child.id)
        }
        await store.sessions.flush(session.id)
        await store.sessions.close(session.id)
        const loaded = await store.sessions.load(session.id)
        expect(projectHistory(loaded.events())).toEqual(expectedView(events))
        expect(projectUpdates(loaded.id, loaded.events())).toEqual(projectUpdates(session.id, events))
        await store.sessions.delete(loaded.id)
      }),
      { numRuns: 40 },
    )
  })
})
