import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { TcpProxy } from '../support/postgres/tcp-proxy.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { agentText } from './updates.js'

// The built binary on PostgreSQL through a TCP proxy on loopback: the connections are cut while a
// turn runs. The client's prompt fails with a clear error, nothing acknowledged is lost, and once
// the database is reachable again the session, loaded again, takes prompts.

const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-faults-'))
const SCRIPT = join(scriptDir, 'script.json')
writeFileSync(
  SCRIPT,
  JSON.stringify({
    turns: [
      [[{ text: 'first answer' }]],
      [[{ text: 'working on it' }, { delayMs: 120_000 }, { text: ' never said' }]],
      [[{ text: 'third answer' }]],
    ],
  }),
)

const agents: AgentProcess[] = []
const proxies: TcpProxy[] = []
afterEach(async (t) => {
  if (t.task.result?.state === 'fail') for (const agent of agents) console.error(agent.stderr)
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
  for (const proxy of proxies.splice(0)) await proxy.close()
})
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

const prompt = (agent: AgentProcess, sessionId: string, text: string) =>
  agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

async function until(agent: AgentProcess, done: (u: acp.SessionNotification) => boolean, from = 0) {
  for (;;) {
    if (agent.updates.slice(from).some(done)) return
    if (agent.child.exitCode !== null) throw new Error(`agent exited: ${agent.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const agentTextOfUser = (u: acp.SessionNotification) =>
  u.update.sessionUpdate === 'user_message_chunk' && u.update.content.type === 'text'
    ? u.update.content.text
    : ''

/** Resolves once the stored log of `id` reaches `seq` (a direct connection, not the proxy's). */
async function committedThrough(url: string, id: string, seq: number): Promise<void> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    for (;;) {
      const { rows } = await client.query<{ last_seq: number }>(
        'SELECT last_seq FROM dsh_sessions WHERE id = $1',
        [id],
      )
      if ((rows[0]?.last_seq ?? 0) >= seq) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  } finally {
    await client.end()
  }
}

describe('dsh-acp on PostgreSQL: the connection cut mid-turn', () => {
  beforeAll(() => sharedPostgres(), 120_000)

  it('the turn fails clearly, the acknowledged turn stays, and the session loaded again takes prompts', async () => {
    const url = await freshSchema()
    const proxy = await TcpProxy.to(url)
    proxies.push(proxy)
    const agent = new AgentProcess({ storeDir: proxy.through(url), args: ['--model', `script:${SCRIPT}`] })
    agents.push(agent)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
    expect((await prompt(agent, sessionId, 'one')).stopReason).toBe('end_turn')

    const from = agent.updates.length
    const running = prompt(agent, sessionId, 'two')
    running.catch(() => {})
    await until(agent, (u) => agentText([u]) === 'working on it', from)
    // Cut once turn 2's prompt is committed (its start and the user's message, before the chunk's event).
    const chunk = agent.updates.slice(from).find((u) => agentText([u]) === 'working on it')
    const chunkSeq = (chunk?._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq ?? 1
    await committedThrough(url, sessionId, chunkSeq - 1)
    proxy.cut()
    await agent.agent.notify('session/cancel', { sessionId })
    const failure = await running.then(
      () => undefined,
      (error: { code?: number; message?: string }) => error,
    )
    expect(failure).toMatchObject({ code: -32011 })
    expect(failure?.message).toMatch(/connection .*lost/)

    // The database is reachable again (new connections through the proxy): load, then prompt.
    const loadFrom = agent.updates.length
    await agent.agent.request('session/load', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const replay = agent.updates.slice(loadFrom)
    expect(agentText(replay)).toContain('first answer')
    expect(
      replay.some((u) => u.update.sessionUpdate === 'user_message_chunk' && agentTextOfUser(u) === 'two'),
    ).toBe(true)
    expect(agentText(replay)).not.toContain('never said')
    const after = agent.updates.length
    expect((await prompt(agent, sessionId, 'three')).stopReason).toBe('end_turn')
    expect(agentText(agent.updates.slice(after))).toBe('third answer')
    expect(agent.audit.problems).toEqual([])
  })
})
