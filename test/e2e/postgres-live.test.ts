import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { endsTurn, saysUser, until } from '../support/live-updates.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { agentText } from './updates.js'

// Two built `dsh-acp` processes on one PostgreSQL database (two hosts): a client that has a session
// open on one sees the other's turns as they are written (LISTEN/NOTIFY), and a prompt on one while
// the other writes is refused before its model runs.

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-live-'))
const SCRIPT_A = join(scriptDir, 'a.json')
const SCRIPT_B = join(scriptDir, 'b.json')
writeFileSync(
  SCRIPT_A,
  JSON.stringify({
    turns: [
      [[{ text: 'first answer' }]],
      [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]],
    ],
  }),
)
// B's model answers the session's third turn at once: a prompt of B's that ran its model before
// being refused would stream this answer to B's client before the refusal.
writeFileSync(
  SCRIPT_B,
  JSON.stringify({ turns: [[[{ text: 'not b' }]], [[{ text: 'not b' }]], [[{ text: 'b answers' }]]] }),
)

const agents: AgentProcess[] = []
afterEach(async (t) => {
  if (t.task.result?.state === 'fail') for (const agent of agents) console.error(agent.stderr)
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
})
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

async function start(url: string, script?: string): Promise<AgentProcess> {
  const agent = new AgentProcess({ storeDir: url, args: script ? ['--model', `script:${script}`] : [] })
  agents.push(agent)
  await agent.initialize()
  return agent
}

function prompt(agent: AgentProcess, sessionId: string, words: string) {
  return agent.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
}

const seqOf = (r: { _meta?: unknown }) => (r._meta as { dsh: { seq: number } }).dsh.seq

describe('two hosts on one PostgreSQL database, live', () => {
  beforeAll(() => sharedPostgres(), 120_000)

  it("B sees A's turns as A writes them; B's prompt while A writes is refused before B's model runs", async () => {
    const url = await freshSchema()
    const a = await start(url, SCRIPT_A)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await start(url, SCRIPT_B)
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const loaded = b.updates.length

    const first = await prompt(a, sessionId, 'one')
    await until(b, endsTurn(seqOf(first)), loaded)

    // A slow turn: B's client sees A's prompt while A's turn still runs.
    let answered = false
    const running = prompt(a, sessionId, 'two').finally(() => {
      answered = true
    })
    await until(b, saysUser('two'), loaded)
    expect(answered).toBe(false)

    // B prompts meanwhile: refused with SESSION_LOCKED before its model ran, nothing of it written.
    const refusedFrom = b.updates.length
    await expect(prompt(b, sessionId, 'refused words')).rejects.toMatchObject({ code: -32010 })
    expect(agentText(b.updates.slice(refusedFrom))).toBe('')
    expect(b.updates.slice(refusedFrom).some(saysUser('refused words'))).toBe(false)
    await a.agent.notify('session/cancel', { sessionId })
    const second = await running
    expect(second.stopReason).toBe('cancelled')
    await until(b, endsTurn(seqOf(second)), loaded)

    // B prompts once A's turn is over: its model's one answer was not used by the refused prompt.
    const from = b.updates.length
    const fromA = a.updates.length
    expect((await prompt(b, sessionId, 'three')).stopReason).toBe('end_turn')
    expect(agentText(b.updates.slice(from))).toBe('b answers')
    // And A's client sees B's turn live in turn.
    await until(a, saysUser('three'), fromA)
    await until(a, (u) => agentText([u]) === 'b answers', fromA)

    // A third host replays the log: every turn once, the refused prompt nowhere.
    const c = await start(url)
    await c.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayed = c.updates.filter((u) => u.sessionId === sessionId)
    expect(replayed.filter((u) => u.update.sessionUpdate === 'user_message_chunk')).toHaveLength(3)
    expect(replayed.some(saysUser('refused words'))).toBe(false)
    expect(agentText(replayed)).toBe('first answerworking on itb answers')
    expect([...a.audit.problems, ...b.audit.problems, ...c.audit.problems]).toEqual([])
  })
})
