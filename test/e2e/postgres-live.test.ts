import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { dshOf, endsTurn, saysUser, seqOf, until } from '../support/live-updates.js'
import { postgresHosts } from '../support/postgres/hosts.js'
import { freshSchema } from '../support/postgres/test-database.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { queuedNotice, queueTwoTakeBackSecond } from '../support/queued-prompts.js'
import { expectStreamedLive, STREAMING_MODEL } from '../support/streamed-live.js'
import { agentText } from './updates.js'

// Two built `dsh-acp` processes on one PostgreSQL database (two hosts): a client that has a session
// open on one sees the other's turns as they are written (LISTEN/NOTIFY), and a prompt on one while
// the other writes waits in line (shown queued, can be taken back) and runs, with its own model,
// only once the other host lets go of the session's pen.

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const hosts = postgresHosts('dsh-acp-pg-live-')
const SCRIPT_A = hosts.script('a', {
  turns: [
    [[{ text: 'first answer' }]],
    [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]],
  ],
})
// B's model answers the session's third turn at once: a prompt of B's whose model ran before B
// held the pen would stream this answer to B's client while A's turn still runs.
const SCRIPT_B = hosts.script('b', {
  turns: [[[{ text: 'not b' }]], [[{ text: 'not b' }]], [[{ text: 'b answers' }]]],
})

const STREAMING = hosts.script('streaming', STREAMING_MODEL)

function prompt(agent: AgentProcess, sessionId: string, words: string) {
  return agent.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
}

describe('two hosts on one PostgreSQL database, live', () => {
  it("B sees A's turns as A writes them; B's prompt while A writes waits in line (taken back or run once A's turn ends), its model only once B holds the pen", async () => {
    const url = await freshSchema()
    const a = await hosts.stdio(url, { script: SCRIPT_A })
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await hosts.stdio(url, { script: SCRIPT_B })
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

    // B prompts meanwhile, twice: both wait in line on B, shown queued; the second is taken back.
    const from = b.updates.length
    let waited = false
    const { waiting } = await queueTwoTakeBackSecond(b, sessionId, ['three', 'taken back'])
    const settled = () => {
      waited = true
    }
    void waiting.then(settled, settled)
    // Nothing of B's model while A holds the pen.
    expect(agentText(b.updates.slice(from))).toBe('')
    expect(waited).toBe(false)

    // A's turn ends (cancelled): the pen is let go, and B's prompt runs with B's model.
    const fromA = a.updates.length
    await a.agent.notify('session/cancel', { sessionId })
    const ended = await running
    expect(ended.stopReason).toBe('cancelled')
    expect((await waiting).stopReason).toBe('end_turn')
    await queuedNotice(b, sessionId, from, 'started')
    // A's cancelled turn, as it was logged before A let the pen go, then B's own.
    expect(agentText(b.updates.slice(from))).toBe('working on itb answers')
    // And A's client sees B's turn live in turn.
    await until(a, saysUser('three'), fromA)
    await until(a, (u) => agentText([u]) === 'b answers', fromA)

    // A third host replays the log: every turn once, the prompt taken back nowhere.
    const c = await hosts.stdio(url)
    await c.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayed = c.updates.filter((u) => u.sessionId === sessionId)
    const users = replayed.filter((u) => u.update.sessionUpdate === 'user_message_chunk')
    expect(users.map((u) => (u.update as { content: { text: string } }).content.text)).toEqual([
      'one',
      'two',
      'three',
    ])
    expect(agentText(replayed)).toBe('first answerworking on itb answers')
    const ends = replayed.map((u) => dshOf(u)?.turnEnd?.reason).filter((r) => r !== undefined)
    expect(ends).toEqual(['completed', 'cancelled', 'completed'])
    expect([...a.audit.problems, ...b.audit.problems, ...c.audit.problems]).toEqual([])
  })

  it("B's client sees A's model text stream in as A's model writes it (NOTIFY), before its message is appended, and once", async () => {
    const url = await freshSchema()
    const a = await hosts.stdio(url, { script: STREAMING })
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await hosts.stdio(url, { script: STREAMING })
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    await expectStreamedLive(a, b, sessionId)
  })

  it("B's session/cancel cancels the turn host A runs (through the board): A's prompt answers cancelled, B sees the turn end", async () => {
    const url = await freshSchema()
    const a = await hosts.stdio(url, { script: SCRIPT_A })
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await hosts.stdio(url, { script: SCRIPT_A })
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const loaded = b.updates.length
    const first = await prompt(a, sessionId, 'one')
    await until(b, endsTurn(seqOf(first)), loaded)
    // A's second turn waits in its model step; B's client sees its prompt, then cancels it.
    const running = prompt(a, sessionId, 'two')
    await until(b, saysUser('two'), loaded)
    await b.agent.notify('session/cancel', { sessionId })
    const cancelled = await running
    expect(cancelled.stopReason).toBe('cancelled')
    const end = await until(b, endsTurn(seqOf(cancelled)), loaded)
    expect(dshOf(end)?.turnEnd?.reason).toBe('cancelled')
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })
})
