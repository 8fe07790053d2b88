import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'
import { agentText } from './updates.js'

// Two `dsh-acp serve` processes on one PostgreSQL database, standing in for two hosts behind a load
// balancer: a client of one sees a turn run on the other live; the host running a turn is killed
// (SIGKILL) and the other takes the session over within a bounded time, nothing acknowledged lost.

const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-serve-'))
const SCRIPT_A = join(scriptDir, 'a.json')
const SCRIPT_B = join(scriptDir, 'b.json')
writeFileSync(
  SCRIPT_A,
  JSON.stringify({
    turns: [
      [[{ text: 'first answer' }]],
      [[{ text: 'working on it' }, { delayMs: 120_000 }, { text: ' never said' }]],
    ],
  }),
)
writeFileSync(
  SCRIPT_B,
  JSON.stringify({ turns: [[[{ text: 'not b' }]], [[{ text: 'not b' }]], [[{ text: 'b took over' }]]] }),
)

const servers: RemoteServer[] = []
const clients: RemoteClient[] = []
afterEach(async (t) => {
  if (t.task.result?.state === 'fail') for (const server of servers) console.error(server.stderr)
  for (const client of clients.splice(0)) client.close()
  for (const server of servers.splice(0)) await server.stop()
})
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

async function serve(url: string, script: string): Promise<RemoteServer> {
  const server = await RemoteServer.start(['--store', url, '--model', `script:${script}`])
  servers.push(server)
  return server
}

async function connect(server: RemoteServer, kind: 'http' | 'ws'): Promise<RemoteClient> {
  const client = server.client(kind)
  clients.push(client)
  await client.initialize()
  return client
}

const prompt = (client: RemoteClient, sessionId: string, text: string) =>
  client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

type Dsh = { seq?: number; turnEnd?: { seq: number; reason: string } }
const dshOf = (u: acp.SessionNotification) => (u._meta as { dsh?: Dsh } | null | undefined)?.dsh
const saysUser = (words: string) => (u: acp.SessionNotification) =>
  u.update.sessionUpdate === 'user_message_chunk' &&
  u.update.content.type === 'text' &&
  u.update.content.text === words

/** Resolves once an update from `from` on passes `done` (checked at each turn of the event loop). */
async function until(client: RemoteClient, done: (u: acp.SessionNotification) => boolean, from = 0) {
  for (;;) {
    const found = client.updates.slice(from).find(done)
    if (found) return found
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('two `dsh-acp serve` hosts on one PostgreSQL database', () => {
  beforeAll(() => sharedPostgres(), 120_000)

  it('a client of B sees A’s turns live; A is killed mid-turn and B takes the session over', async () => {
    const url = await freshSchema()
    const a = await serve(url, SCRIPT_A)
    const b = await serve(url, SCRIPT_B)
    const onA = await connect(a, 'http')
    const onB = await connect(b, 'ws')
    const { sessionId } = await onA.agent.request('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
    await onB.agent.request('session/load', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const loaded = onB.updates.length

    const first = await prompt(onA, sessionId, 'one')
    const firstSeq = (first._meta as { dsh: { seq: number } }).dsh.seq
    await until(onB, (u) => dshOf(u)?.turnEnd?.seq === firstSeq, loaded)
    expect(agentText(onB.updates.slice(loaded))).toBe('first answer')

    // A's second turn runs (its prompt is committed and shown on B), then A's host dies.
    const running = prompt(onA, sessionId, 'two')
    running.catch(() => {})
    await until(onB, saysUser('two'), loaded)
    await expect(prompt(onB, sessionId, 'while A writes')).rejects.toMatchObject({ code: -32010 })
    const killedAt = Date.now()
    await a.stop('SIGKILL')

    // The database lets A's pen go with A's connections: B's prompt is taken within a bounded time.
    let answer: acp.PromptResponse | undefined
    while (!answer) {
      answer = await prompt(onB, sessionId, 'three').catch((error: { code?: number }) => {
        if (error.code !== -32010) throw error
        return undefined
      })
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const tookOver = Date.now() - killedAt
    expect(answer.stopReason).toBe('end_turn')
    expect(tookOver).toBeLessThan(30_000)
    console.error(`B took the session over ${tookOver} ms after A was killed`)

    // A fresh host reads everything acknowledged, A's open turn ended `interrupted`, once each.
    const c = await serve(url, SCRIPT_B)
    const onC = await connect(c, 'http')
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
