import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { fork, newSession, prompt } from '../support/snapshot-client.js'

type Wire = {
  id?: unknown
  method?: string
  params?: { sessionId?: string; update?: { sessionUpdate: string } }
}

const started: AgentProcess[] = []
afterEach(async () => {
  for (const agent of started.splice(0)) {
    await agent.stop()
    agent.cleanup()
  }
})

function start(storeDir?: string): AgentProcess {
  const agent = new AgentProcess(storeDir === undefined ? {} : { storeDir })
  started.push(agent)
  return agent
}

/** The index in the agent's output of the response to the client's `method` request (the last one). */
function responseIndex(agent: AgentProcess, method: string): number {
  const sent = agent.audit.entries.filter((e) => e.dir === 'in').map((e) => e.message as Wire)
  const ids = sent.filter((m) => m.method === method).map((m) => JSON.stringify(m.id))
  const out = agent.audit.outgoing() as Wire[]
  const at = out.findLastIndex((m) => m.method === undefined && ids.includes(JSON.stringify(m.id)))
  if (at < 0) throw new Error(`no response to ${method}`)
  return at
}

/** The `sessionUpdate` kinds the agent wrote for `sessionId` in output positions [from, to). */
function updateKinds(agent: AgentProcess, sessionId: string, from: number, to: number): string[] {
  return (agent.audit.outgoing() as Wire[])
    .slice(from, to)
    .filter((m) => m.method === 'session/update' && m.params?.sessionId === sessionId)
    .map((m) => m.params?.update?.sessionUpdate ?? '')
}

/**
 * Loads `sessionId` in a fresh process on `storeDir`, then asks `session/list`: the agent writes in
 * order, so what it wrote between the two answers is everything that followed the load answer.
 */
async function loadThenList(storeDir: string, sessionId: string) {
  const agent = start(storeDir)
  await agent.initialize()
  await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
  await agent.agent.request('session/list', {})
  const load = responseIndex(agent, 'session/load')
  const list = responseIndex(agent, 'session/list')
  expect(agent.audit.problems).toEqual([])
  return { before: updateKinds(agent, sessionId, 0, load), after: updateKinds(agent, sessionId, load, list) }
}

describe('session/load sends every update of the session before its answer (ACP)', () => {
  it('the replay, the command list and the title precede the answer; nothing of the session follows it', async () => {
    const first = start()
    await first.initialize()
    const sessionId = await newSession(first)
    await prompt(first, sessionId, 'hello there')
    await prompt(first, sessionId, 'and again')
    await first.stop()

    const { before, after } = await loadThenList(first.storeDir, sessionId)
    expect(after).toEqual([])
    expect(before).toContain('available_commands_update')
    expect(before.filter((kind) => kind === 'user_message_chunk')).toHaveLength(2)
    // The title derived from the first prompt, once (it was sent twice).
    expect(before.filter((kind) => kind === 'session_info_update')).toHaveLength(1)
  })

  it("a fork child's title, from its header, is sent once before the answer", async () => {
    const first = start()
    await first.initialize()
    const sessionId = await newSession(first)
    await prompt(first, sessionId, 'hello there')
    const child = await fork(first, sessionId)
    await first.stop()

    const agent = start(first.storeDir)
    await agent.initialize()
    await agent.agent.request('session/load', { sessionId: child.sessionId, cwd: agent.cwd, mcpServers: [] })
    await agent.agent.request('session/list', {})
    const load = responseIndex(agent, 'session/load')
    const list = responseIndex(agent, 'session/list')
    expect(updateKinds(agent, child.sessionId, load, list)).toEqual([])
    const titles = agent.updates.filter(
      (n) => n.sessionId === child.sessionId && n.update.sessionUpdate === 'session_info_update',
    )
    // The parent's derived title is replayed with the seed; the child's own header title last.
    expect(titles.at(-1)?.update).toMatchObject({ title: 'hello there (fork)' })
    expect(
      titles.filter((n) => (n.update as { title?: string }).title === 'hello there (fork)'),
    ).toHaveLength(1)
  })

  it('session/new and session/fork still send the command list and title after their answer', async () => {
    const agent = start()
    await agent.initialize()
    const sessionId = await newSession(agent)
    await agent.agent.request('session/list', {})
    const created = responseIndex(agent, 'session/new')
    expect(updateKinds(agent, sessionId, 0, created)).toEqual([])
    expect(updateKinds(agent, sessionId, created, responseIndex(agent, 'session/list'))).toEqual([
      'available_commands_update',
    ])
    await prompt(agent, sessionId, 'hello there')
    const child = await fork(agent, sessionId)
    await agent.agent.request('session/list', {})
    const forked = responseIndex(agent, 'session/fork')
    expect(updateKinds(agent, child.sessionId, 0, forked)).toEqual([])
    expect(updateKinds(agent, child.sessionId, forked, responseIndex(agent, 'session/list'))).toEqual([
      'available_commands_update',
      'session_info_update',
    ])
  })
})
