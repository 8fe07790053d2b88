import { spawnSync } from 'node:child_process'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess, CLI, HERMETIC_ENV } from '../support/agent-process.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { answerText, fork, newSession, prompt, userTexts } from '../support/snapshot-client.js'

// The built binary with `--store postgres://…` over real stdio, driven by the official ACP client:
// what one process wrote, a second process (another host) lists, loads and continues.

describe('dsh-acp --store postgres://…', () => {
  const agents: AgentProcess[] = []
  const start = (url: string) => {
    const agent = new AgentProcess({ storeDir: url })
    agents.push(agent)
    return agent
  }
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async () => {
    for (const agent of agents.splice(0)) {
      expect(agent.audit.problems).toEqual([])
      await agent.stop()
    }
  })

  it('new session, prompts and a fork in one process; list, load and prompt in a second', async () => {
    const url = await freshSchema()
    const first = start(url)
    await first.initialize()
    const parent = await newSession(first)
    const one = await prompt(first, parent, 'first question')
    await prompt(first, parent, 'second question')
    const child = await fork(first, parent, { boundary: one.seq })
    expect(child).toMatchObject({ parentSession: parent, seedLength: one.seq })
    await prompt(first, child.sessionId, 'asked in the child')
    expect(await first.stop()).toBe(0)

    const second = start(url)
    await second.initialize()
    const listed = await second.agent.request('session/list', {})
    expect(listed.sessions.map((s) => s.sessionId).sort()).toEqual([parent, child.sessionId].sort())
    expect(listed.sessions.find((s) => s.sessionId === parent)?.title).toBe('first question')
    let from = second.updates.length
    await second.agent.request('session/load', {
      sessionId: child.sessionId,
      cwd: second.cwd,
      mcpServers: [],
    })
    expect(userTexts(second, child.sessionId, from)).toEqual(['first question', 'asked in the child'])
    from = second.updates.length
    await second.agent.request('session/load', { sessionId: parent, cwd: second.cwd, mcpServers: [] })
    expect(userTexts(second, parent, from)).toEqual(['first question', 'second question'])
    from = second.updates.length
    await prompt(second, child.sessionId, 'continued elsewhere')
    expect(answerText(second, child.sessionId, from)).toContain('I remember 3 messages')
    // `dsh-acp sessions` reads the same database: the lineage, the password never printed.
    const lineage = spawnSync(process.execPath, [CLI, 'sessions', '--store', url], {
      env: { ...process.env, ...HERMETIC_ENV },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(lineage.status).toBe(0)
    expect(lineage.stdout).toContain('2 sessions in postgres://')
    expect(lineage.stdout).toContain(parent)
    expect(lineage.stdout).toContain(child.sessionId)
    const password = new URL(url).password
    expect(password).not.toBe('')
    expect(lineage.stdout).not.toContain(password)
  })

  it('refuses to start, saying why, when the database cannot be reached', () => {
    const result = spawnSync(process.execPath, [CLI, '--store', 'postgres://nobody@127.0.0.1:1/none'], {
      input: '',
      env: { ...process.env, ...HERMETIC_ENV },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(result.status).not.toBe(0)
    expect(result.stderr).toMatch(/postgres/i)
    expect(result.stdout).toBe('')
  })
})
