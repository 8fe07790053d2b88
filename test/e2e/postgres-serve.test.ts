import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { dshOf, endsTurn, saysUser, seqOf, until } from '../support/live-updates.js'
import { postgresHosts } from '../support/postgres/hosts.js'
import { freshSchema } from '../support/postgres/test-database.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import type { RemoteClient } from '../support/remote-server.js'
import { agentText } from './updates.js'

// Two `dsh-acp serve` processes on one PostgreSQL database, standing in for two hosts behind a load
// balancer: a client of one sees a turn run on the other live; a prompt on B while A's turn runs
// waits in line; the host running the turn is killed (SIGKILL) and B's prompt runs within a
// bounded time (the database let A's pen go with A's connections), nothing acknowledged lost.

const hosts = postgresHosts('dsh-acp-pg-serve-')
const SCRIPT_A = hosts.script('a', {
  turns: [
    [[{ text: 'first answer' }]],
    [[{ text: 'working on it' }, { delayMs: 120_000 }, { text: ' never said' }]],
  ],
})
const SCRIPT_B = hosts.script('b', {
  turns: [[[{ text: 'not b' }]], [[{ text: 'not b' }]], [[{ text: 'b took over' }]]],
})

const prompt = (client: RemoteClient, sessionId: string, text: string) =>
  client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

const isQueued = (u: acp.SessionNotification) =>
  (u.update._meta as { dsh?: { queued?: { state: string } } } | undefined)?.dsh?.queued?.state === 'queued'

describe('two `dsh-acp serve` hosts on one PostgreSQL database', () => {
  it('a client of B sees A’s turns live; A is killed mid-turn and B takes the session over', async () => {
    const url = await freshSchema()
    const a = await hosts.serve(url, SCRIPT_A)
    const b = await hosts.serve(url, SCRIPT_B)
    const onA = await hosts.connect(a, 'http')
    const onB = await hosts.connect(b, 'ws')
    const { sessionId } = await onA.agent.request('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
    await onB.agent.request('session/load', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const loaded = onB.updates.length

    const first = await prompt(onA, sessionId, 'one')
    await until(onB, (u) => dshOf(u)?.turnEnd?.seq === seqOf(first), loaded)
    expect(agentText(onB.updates.slice(loaded))).toBe('first answer')

    // A's second turn runs (its prompt is committed and shown on B), then A's host dies.
    const running = prompt(onA, sessionId, 'two')
    running.catch(() => {})
    await until(onB, saysUser('two'), loaded)
    // B's prompt meanwhile waits in line on B (shown queued), its model not run.
    const from = onB.updates.length
    const waiting = prompt(onB, sessionId, 'three')
    await until(onB, isQueued, from)
    const killedAt = Date.now()
    await a.stop('SIGKILL')

    // The database lets A's pen go with A's connections: B's prompt runs within a bounded time.
    const answer = await waiting
    const tookOver = Date.now() - killedAt
    expect(answer.stopReason).toBe('end_turn')
    // What A's model streamed before A died reached B's client live (whether before or after
    // `from`); it never reached the log: A's turn ends `interrupted` (below).
    expect(agentText(onB.updates.slice(from))).toMatch(/^(working on it)?b took over$/)
    expect(tookOver).toBeLessThan(30_000)
    console.error(`B took the session over ${tookOver} ms after A was killed`)

    // A fresh host reads everything acknowledged, A's open turn ended `interrupted`, once each.
    const c = await hosts.serve(url, SCRIPT_B)
    const onC = await hosts.connect(c, 'http')
    await onC.agent.request('session/load', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const log = onC.updates.filter((u) => u.sessionId === sessionId)
    const users = log.filter((u) => u.update.sessionUpdate === 'user_message_chunk')
    expect(users.map((u) => (u.update as { content: { text: string } }).content.text)).toEqual([
      'one',
      'two',
      'three',
    ])
    expect(agentText(log)).toBe('first answerb took over')
    const ends = log.map((u) => dshOf(u)?.turnEnd?.reason).filter((r) => r !== undefined)
    expect(ends).toEqual(['completed', 'interrupted', 'completed'])
  })
})
