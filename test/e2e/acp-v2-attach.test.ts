import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { testResources } from '../support/test-resources.js'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'

// The ACP Remote draft's attach on v2 connections (`session/attach`, its delivery barrier
// `session/ready`, `session/detach`) and `replayFrom: {type: "after_event"}`, driven by the SDK's v2
// client against the built binary; two processes share one store.

const dirs: string[] = []
const agents: V2AgentProcess[] = []
const resources = testResources()
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop()
})
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-v2-attach-'))
  dirs.push(dir)
  const project = join(dir, 'project')
  mkdirSync(project)
  return { project, store: join(dir, 'store') }
}

async function start(store: string, args: readonly string[] = []): Promise<V2AgentProcess> {
  const agent = new V2AgentProcess({ args: ['--store', store, '--log-level', 'error', ...args] })
  agents.push(agent)
  await agent.initialize()
  return agent
}

// Draft methods are in no SDK schema: their shapes are checked here, in schemas/attach.schema.json.
const DRAFT = /^session\/(attach|ready|detach) is in no v2 schema/
const problems = (agent: V2AgentProcess) => agent.audit.problems.filter((p) => !DRAFT.test(p))

type Rpc = (method: string, params: Record<string, unknown>) => Promise<any>
const rpc =
  (agent: V2AgentProcess): Rpc =>
  (method, params) =>
    agent.agent.request(method as never, params as never)

async function prompt(agent: V2AgentProcess, sessionId: string, text: string): Promise<void> {
  const from = agent.audit.updates().length
  await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
  await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', from)
}

const says = (text: string) => (u: Record<string, any>) =>
  u.sessionUpdate === 'user_message' && u.content?.[0]?.text === text

/** The user messages among `agent`'s updates, in order. */
const userTexts = (agent: V2AgentProcess) =>
  agent.audit
    .updates()
    .filter((u) => u.sessionUpdate === 'user_message')
    .map((u) => u.content[0].text)

describe('ACP v2 session/attach', () => {
  it('answers with the latest event and a barrier, sends nothing before session/ready, then the replay after the cursor and every update live', async () => {
    const w = workspace()
    const a = await start(w.store)
    const { sessionId } = await a.agent.request('session/new', { cwd: w.project })
    await prompt(a, sessionId, 'first words')

    const b = await start(w.store)
    const attached = await rpc(b)('session/attach', { sessionId, operationId: 'op-1' })
    expect(attached).toMatchObject({
      controlPolicy: 'ordered_multi_writer',
      recovery: { type: 'event_replay' },
      effectiveSubscriptions: ['events', 'pending_interactions', 'presence'],
    })
    const latest: string = attached.recovery.latestSourceEventId
    expect(latest).toMatch(/^[1-9][0-9]*$/)
    expect(attached.sessionVersion).toBe(latest)
    await rpc(b)('session/ready', { sessionId, deliveryBarrierId: attached.deliveryBarrierId })
    // The barrier: no update of the session went out before the client sent session/ready.
    const lines = b.audit.lines
    const readyAt = lines.findIndex((l) => l.dir === 'in' && l.message.method === 'session/ready')
    const firstUpdate = lines.findIndex((l) => l.dir === 'out' && l.message.method === 'session/update')
    expect(readyAt).toBeGreaterThanOrEqual(0)
    expect(firstUpdate).toBeGreaterThan(readyAt)
    // No replayFrom: nothing before the latest event is replayed; the turn's state is told.
    expect(userTexts(b)).toEqual([])
    expect(b.audit.updates()).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'state_update', state: 'idle' }),
    )

    // Live from the other process, the turn's state with it: running, then idle and why.
    const liveFrom = b.audit.updates().length
    await prompt(a, sessionId, 'second words')
    await b.until(says('second words'))
    await b.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', liveFrom)
    const live = b.audit.updates().slice(liveFrom)
    const states = live.filter((u) => u.sessionUpdate === 'state_update')
    expect(states).toEqual([
      expect.objectContaining({ state: 'running' }),
      expect.objectContaining({ state: 'idle', stopReason: 'end_turn' }),
    ])
    const at = (u: unknown) => live.indexOf(u as (typeof live)[number])
    expect(at(states[0])).toBeLessThan(live.findIndex(says('second words')))
    expect(at(states[1])).toBeGreaterThan(live.findIndex((u) => u.sessionUpdate === 'agent_message'))

    // Another client replays only what came after the cursor, by attach and by resume.
    const c = await start(w.store)
    const fromCursor = await rpc(c)('session/attach', {
      sessionId,
      replayFrom: { type: 'after_event', sourceEventId: latest },
    })
    await rpc(c)('session/ready', { sessionId, deliveryBarrierId: fromCursor.deliveryBarrierId })
    expect(userTexts(c)).toEqual(['second words'])
    const d = await start(w.store)
    await d.agent.request('session/resume', {
      sessionId,
      cwd: w.project,
      replayFrom: { type: 'after_event', sourceEventId: latest },
    } as never)
    expect(userTexts(d)).toEqual(['second words'])
    const e = await start(w.store)
    const whole = await rpc(e)('session/attach', { sessionId, replayFrom: { type: 'start' } })
    await rpc(e)('session/ready', { sessionId, deliveryBarrierId: whole.deliveryBarrierId })
    expect(userTexts(e)).toEqual(['first words', 'second words'])

    // Detach: the session goes on for the others.
    expect(await rpc(b)('session/detach', { sessionId, attachmentId: attached.attachmentId })).toEqual({})
    await prompt(a, sessionId, 'third words')
    await c.until(says('third words'))
    for (const agent of [a, b, c, d, e]) expect(problems(agent)).toEqual([])
  })

  it('refuses what it cannot serve: unknown session, cursor past the log, bad cursor, unknown barrier, v1', async () => {
    const w = workspace()
    const a = await start(w.store)
    const { sessionId } = await a.agent.request('session/new', { cwd: w.project })
    await prompt(a, sessionId, 'only words')
    const call = rpc(a)
    await expect(call('session/attach', { sessionId: 'ses_nobody' })).rejects.toMatchObject({ code: -32002 })
    await expect(
      call('session/attach', { sessionId, replayFrom: { type: 'after_event', sourceEventId: '999999' } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('past the session') })
    await expect(call('session/attach', { sessionId, replayFrom: { type: 'latest' } })).rejects.toMatchObject(
      {
        code: -32602,
      },
    )
    await expect(
      call('session/ready', { sessionId, deliveryBarrierId: 'bar_unknown' }),
    ).rejects.toMatchObject({
      code: -32602,
    })
    await expect(
      a.agent.request('session/resume', {
        sessionId,
        cwd: w.project,
        replayFrom: { type: 'after_event', sourceEventId: '999999' },
      } as never),
    ).rejects.toMatchObject({ code: -32602 })
    expect(problems(a)).toEqual([])

    const v1 = resources.start({ storeDir: w.store })
    await v1.initialize()
    await expect(v1.agent.request('session/attach' as never, { sessionId } as never)).rejects.toMatchObject({
      code: -32601,
    })
  })

  it('detaching is not ending: a turn running when its only client detaches goes on (attached again: running), until a cancel', async () => {
    const w = workspace()
    const model = join(w.project, '..', 'slow.json')
    writeFileSync(
      model,
      JSON.stringify({ turns: [[[{ text: 'working' }, { delayMs: 60_000 }, { text: ' never' }]]] }),
    )
    const a = await start(w.store, ['--model', `script:${model}`])
    const { sessionId } = await a.agent.request('session/new', { cwd: w.project })
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow' }] })
    await a.until((u) => u.sessionUpdate === 'state_update' && u.state === 'running')
    expect(await rpc(a)('session/detach', { sessionId })).toEqual({})
    const from = a.audit.updates().length
    const again = await rpc(a)('session/attach', { sessionId })
    await rpc(a)('session/ready', { sessionId, deliveryBarrierId: again.deliveryBarrierId })
    const state = await a.until((u) => u.sessionUpdate === 'state_update', from)
    expect(state.state).toBe('running')
    await a.agent.notify('session/cancel', { sessionId })
    await a.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', from)
    expect(problems(a)).toEqual([])
  })
})
