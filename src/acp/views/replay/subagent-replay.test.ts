import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  appendAll,
  cleanTurn,
  type StoreFixture,
  startStore,
} from '../../../../test/support/session-store.js'
import { updateOf } from '../../../../test/support/update-of.js'
import {
  type AnyEventInput,
  type SessionEvent,
  type SessionHeader,
  type SessionPersistence,
  type SessionUpdateNotification,
  type StoredEventVisitor,
  UpdateProjector,
} from '../../../session/index.js'
import type { Session } from '../../../session/session.js'
import type { CallContext } from '../../call-context.js'
import type { ClientState } from '../../method.js'
import { ClientView } from '../client-view.js'
import { subagentReplay } from './subagent-replay.js'

/** A backend that only knows how to hand over stored events (what the replay reads a child by). */
class VisitOnly implements Pick<SessionPersistence, 'visit'> {
  readonly stored = new Map<string, { header: SessionHeader; events: SessionEvent[] }>()
  readonly reads: { id: string; from: number }[] = []
  async visit(id: string, from: number, visit: StoredEventVisitor): Promise<SessionHeader | undefined> {
    this.reads.push({ id, from })
    const file = this.stored.get(id)
    if (!file) return undefined
    for (const event of file.events.filter((e) => e.seq >= from))
      if (!(await visit(event, file.header))) break
    return file.header
  }
}

let f: StoreFixture
let disk: VisitOnly
beforeEach(async () => {
  f = await startStore()
  disk = new VisitOnly()
  f.ctx.set('persistence', disk as unknown as SessionPersistence)
})
afterEach(() => f.stop())

function callFor(capabilities: Record<string, unknown>) {
  const sent: SessionUpdateNotification[] = []
  const call = {
    sessions: f.sessions,
    view: new ClientView({ protocolVersion: 1, capabilities } as ClientState),
    notify: async (n: SessionUpdateNotification) => {
      // the output takes a while: later sends must still come out in order
      await new Promise((resolve) => setImmediate(resolve))
      sent.push(n)
    },
  } as unknown as CallContext
  return { call, sent }
}

/** Turn 1, then turn 2 delegating `call_d` to a child that runs `childTurn`. */
function delegation(childTurn: (turn: number) => AnyEventInput[]): { parent: Session; child: Session } {
  const parent = appendAll(f.sessions.create(), cleanTurn(1))
  appendAll(parent, [
    { type: 'turn/start', data: { turn: 2 } },
    { type: 'user/message', data: { turn: 2, content: [{ type: 'text', text: 'delegate it' }] } },
    { type: 'step/start', data: { turn: 2, step: 1 } },
    {
      type: 'tool/call',
      data: { turn: 2, step: 1, callId: 'call_d', name: 'delegate', input: { task: 'do it' } },
    },
  ])
  const child = f.sessions.forkSubagent(parent, { turn: 2, callId: 'call_d' }, { title: 'Kid' })
  appendAll(child, childTurn(2))
  appendAll(parent, [
    {
      type: 'subagent:spawned',
      data: { turn: 2, callId: 'call_d', sessionId: child.id, title: 'Kid', task: 'do it' },
    },
    { type: 'tool/result', data: { turn: 2, step: 1, callId: 'call_d', output: 'done' } },
    { type: 'step/end', data: { turn: 2, step: 1 } },
    { type: 'turn/end', data: { turn: 2, reason: 'completed' } },
  ])
  return { parent, child }
}

/** Replays `parent` as session/load does, through the replay (or straight, for a client without it). */
async function replay(parent: Session, capabilities: Record<string, unknown>) {
  const { call, sent } = callFor(capabilities)
  const replay = subagentReplay(call)
  const projector = new UpdateProjector(parent.id)
  for (const event of parent.events()) {
    const updates = projector.updatesFor(event)
    if (replay) replay.send(event, updates)
    else for (const update of updates) call.notify(update)
  }
  await replay?.drained()
  await new Promise((resolve) => setImmediate(resolve))
  return sent
}

/** [who, kind, state or status] of each update from the delegate call on. */
const shape = (sent: readonly SessionUpdateNotification[], parent: Session) =>
  sent
    .slice(sent.findIndex((n) => 'toolCallId' in n.update && n.update.toolCallId === 'call_d'))
    .map((n) => [
      n.sessionId === parent.id ? 'parent' : 'child',
      n.update.sessionUpdate,
      updateOf(n.update, 'subagent_update')?.state?.state ??
        ('status' in n.update ? n.update.status : undefined),
    ])

const taskTurn =
  (reason: string, message?: string) =>
  (turn: number): AnyEventInput[] => [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: 'do it' }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'tool/call', data: { turn, step: 1, callId: 'call_k', name: 'read', input: {} } },
    ...(reason === 'completed'
      ? ([
          { type: 'tool/result', data: { turn, step: 1, callId: 'call_k', output: 'x' } },
          { type: 'assistant/message', data: { turn, step: 1, content: 'did it' } },
          { type: 'step/end', data: { turn, step: 1 } },
        ] as AnyEventInput[])
      : []),
    { type: 'turn/end', data: { turn, reason, ...(message !== undefined && { message }) } },
  ]

describe('subagentReplay', () => {
  it('is only for a client with the subagents capability', () => {
    expect(subagentReplay(callFor({}).call)).toBeUndefined()
    expect(subagentReplay(callFor({ subagents: null }).call)).toBeUndefined()
    expect(subagentReplay(callFor({ subagents: {} }).call)).toBeDefined()
  })

  it('a live child that ended: announced, its turn under its own id, idle with its stop reason; the parent’s later updates after it', async () => {
    const { parent, child } = delegation(taskTurn('completed'))
    const sent = await replay(parent, { subagents: {} })
    expect(shape(sent, parent)).toEqual([
      ['parent', 'tool_call', 'pending'],
      ['parent', 'subagent_update', 'running'],
      ['parent', 'tool_call_update', 'in_progress'],
      ['child', 'user_message', undefined],
      ['child', 'tool_call', 'pending'],
      ['child', 'tool_call_update', 'completed'],
      ['child', 'agent_message', undefined],
      ['parent', 'subagent_update', 'idle'],
      ['parent', 'tool_call_update', 'completed'],
    ])
    const spawnedSeq = parent.events().find((e) => e.type === 'subagent:spawned')?.seq
    const subagentUpdates = sent.filter((n) => n.update.sessionUpdate === 'subagent_update')
    expect(subagentUpdates.map((n) => n._meta?.dsh.seq)).toEqual([spawnedSeq, spawnedSeq])
    expect(updateOf(subagentUpdates[1]?.update, 'subagent_update')?.state).toEqual({
      state: 'idle',
      stopReason: 'end_turn',
    })
    const childSeqs = sent.filter((n) => n.sessionId === child.id).map((n) => n._meta?.dsh.seq)
    expect(Math.min(...(childSeqs as number[]))).toBe((child.header.seedLength ?? 0) + 2)
  })

  it('a client without the capability sees the parent’s own replay only', async () => {
    const { parent } = delegation(taskTurn('completed'))
    const sent = await replay(parent, {})
    expect(shape(sent, parent)).toEqual([
      ['parent', 'tool_call', 'pending'],
      ['parent', 'tool_call_update', 'in_progress'],
      ['parent', 'tool_call_update', 'completed'],
    ])
  })

  it('a child that failed reports idle with error and the message its turn/end recorded', async () => {
    const { parent } = delegation(taskTurn('error', 'HTTP 500'))
    const sent = await replay(parent, { subagents: {} })
    expect(
      updateOf(
        sent.filter((n) => n.update.sessionUpdate === 'subagent_update').at(-1)?.update,
        'subagent_update',
      )?.state,
    ).toEqual({
      state: 'idle',
      stopReason: 'error',
      error: { code: -32020, message: 'the model failed: HTTP 500' },
    })
  })

  it('a live child still at work gets no last update', async () => {
    const { parent } = delegation((turn) => taskTurn('completed')(turn).slice(0, 4))
    const sent = await replay(parent, { subagents: {} })
    expect(shape(sent, parent).map(([who, kind, state]) => `${who} ${kind} ${state}`)).toEqual([
      'parent tool_call pending',
      'parent subagent_update running',
      'parent tool_call_update in_progress',
      'child user_message undefined',
      'child tool_call pending',
      'parent tool_call_update completed',
    ])
  })

  it('a stored child is read from its delegated turn on only; one cut off by a crash ends as its load will end it', async () => {
    const { parent, child } = delegation((turn) => taskTurn('completed')(turn).slice(0, 4))
    disk.stored.set(child.id, { header: child.header, events: child.events() })
    await f.sessions.close(child.id)
    const sent = await replay(parent, { subagents: {} })
    expect(disk.reads).toEqual([{ id: child.id, from: (child.header.seedLength ?? 0) + 1 }])
    expect(shape(sent, parent).slice(3)).toEqual([
      ['child', 'user_message', undefined],
      ['child', 'tool_call', 'pending'],
      ['child', 'tool_call_update', 'failed'],
      ['parent', 'subagent_update', 'idle'],
      ['parent', 'tool_call_update', 'completed'],
    ])
    expect(
      updateOf(
        sent.find((n) => updateOf(n.update, 'subagent_update')?.state?.state === 'idle')?.update,
        'subagent_update',
      )?.state,
    ).toEqual({
      state: 'idle',
      _meta: { dsh: { endReason: 'interrupted' } },
    })
  })

  it('a stored child that is missing, or is not the subagent of this call: state unknown with the reason', async () => {
    const { parent, child } = delegation(taskTurn('completed'))
    await f.sessions.close(child.id)
    const missing = await replay(parent, { subagents: {} })
    expect(shape(missing, parent)[3]).toEqual(['parent', 'subagent_update', 'unknown'])
    expect(JSON.stringify(updateOf(missing.at(-2)?.update, 'subagent_update')?.state)).toContain(
      `session ${child.id} not found`,
    )

    disk.stored.set(child.id, {
      header: { ...child.header, subagent: { turn: 2, callId: 'call_x' } },
      events: child.events(),
    })
    const other = await replay(parent, { subagents: {} })
    expect(shape(other, parent)[3]).toEqual(['parent', 'subagent_update', 'unknown'])
    expect(JSON.stringify(updateOf(other.at(-2)?.update, 'subagent_update')?.state)).toContain(
      'is not the subagent that call call_d',
    )
  })
})
