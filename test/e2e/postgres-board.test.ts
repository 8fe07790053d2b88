import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { postgresHosts, type StdioHostOptions } from '../support/postgres/hosts.js'
import { freshSchema } from '../support/postgres/test-database.js'

// Two built `dsh-acp` hosts on one PostgreSQL database, each with its own client: a permission
// request of A's turn is asked of B's client too, through the database's notice board; the first
// answer settles it, the tool runs once, the other client's request is withdrawn and both see
// the outcome; presence counts both hosts' clients; a host killed mid-question drops out.

type Answer = NonNullable<StdioHostOptions['answer']>

const hosts = postgresHosts('dsh-acp-pg-board-')
const WRITE = hosts.script('write', {
  turns: [
    [
      [{ toolCall: { name: 'write_text_file', input: { path: 'made.txt', content: 'made\n' } } }],
      [{ text: 'done' }],
    ],
  ],
})

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const choose = (kind: string) => (params: acp.RequestPermissionRequest) => {
  const option = params.options.find((o) => o.kind === kind)
  if (!option) throw new Error(`no ${kind} option`)
  return { outcome: { outcome: 'selected' as const, optionId: option.optionId } }
}

/** An answer never given: resolves `cancelled` once the agent withdraws the request. */
const never =
  (withdrawn: { count: number }): Answer =>
  (_params, signal) =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        withdrawn.count++
        resolve({ outcome: { outcome: 'cancelled' } })
      })
    })

async function until(check: () => boolean, agents: readonly AgentProcess[]): Promise<void> {
  while (!check()) {
    const dead = agents.find((agent) => agent.child.exitCode !== null)
    if (dead) throw new Error(`agent exited: ${dead.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

type Dsh = {
  question?: { toolCallId?: string; state: string; optionId?: string; answeredBy?: string }
  presence?: { attached: number; clients: string[]; state: string }
}
const dshOf = (u: acp.SessionNotification) => (u.update as { _meta?: { dsh?: Dsh } })._meta?.dsh ?? {}
const outcomes = (c: AgentProcess) => c.updates.flatMap((u) => dshOf(u).question ?? [])
const presences = (c: AgentProcess) => c.updates.flatMap((u) => dshOf(u).presence ?? [])

/** Host A and host B on a fresh database, each with one named client; B has A's session open. */
async function pair(answerA: Answer, answerB: Answer) {
  const url = await freshSchema()
  const cwd = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-board-cwd-'))
  dirs.push(cwd)
  const a = await hosts.stdio(url, { script: WRITE, cwd, name: 'host-a', answer: answerA })
  const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
  const b = await hosts.stdio(url, { script: WRITE, cwd, name: 'host-b', answer: answerB })
  await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
  return { a, b, sessionId, cwd }
}

const writeIt = (agent: AgentProcess, sessionId: string) =>
  agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] })

describe('questions and presence across hosts on PostgreSQL', () => {
  it("B's client answers a permission request of A's turn: the tool runs once, A's client is withdrawn, both see the outcome", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId, cwd } = await pair(never(withdrawn), async (params) => {
      askedOfB++
      return choose('allow_once')(params)
    })
    expect((await writeIt(a, sessionId)).stopReason).toBe('end_turn')
    expect(askedOfB).toBe(1)
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    await until(() => withdrawn.count === 1 && outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    expect(outcomes(a)).toEqual([
      { toolCallId: expect.any(String), state: 'answered', optionId: 'allow_once', answeredBy: 'host-b' },
    ])
    expect(outcomes(b)).toEqual(outcomes(a))
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it('clients of both hosts answer in the same moment: one answer wins, the tool runs as it says, both see it', async () => {
    const asked: Array<() => void> = []
    const barrier =
      (kind: string): Answer =>
      (params) =>
        new Promise((resolve) => {
          asked.push(() => resolve(choose(kind)(params)))
          if (asked.length === 2) for (const go of asked) go()
        })
    const { a, b, sessionId, cwd } = await pair(barrier('reject_once'), barrier('allow_once'))
    expect((await writeIt(a, sessionId)).stopReason).toBe('end_turn')
    expect(asked).toHaveLength(2)
    await until(() => outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    const [seen] = outcomes(a)
    expect(outcomes(a)).toHaveLength(1)
    expect(outcomes(b)).toEqual(outcomes(a))
    const allowed = seen?.optionId === 'allow_once'
    expect(seen?.answeredBy).toBe(allowed ? 'host-b' : 'host-a')
    expect(existsSync(join(cwd, 'made.txt'))).toBe(allowed)
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("presence counts the clients of both hosts; when B's client leaves, A is told", async () => {
    const { a, b, sessionId } = await pair(never({ count: 0 }), never({ count: 0 }))
    await until(() => presences(a).some((p) => p.attached === 2), [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 2, clients: ['host-a', 'host-b'], state: 'idle' })
    await until(() => presences(b).some((p) => p.attached === 2), [a, b])
    expect(presences(b).at(-1)).toMatchObject({ attached: 2, clients: ['host-b', 'host-a'] })
    await b.agent.request('session/close', { sessionId })
    await until(() => presences(a).at(-1)?.attached === 1, [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 1, clients: ['host-a'], state: 'idle' })
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("A's host is killed (SIGKILL) while its question is open: B's copy is withdrawn and A leaves B's presence", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId } = await pair(never({ count: 0 }), (params, signal) => {
      askedOfB++
      return never(withdrawn)(params, signal)
    })
    void writeIt(a, sessionId).catch(() => {})
    await until(() => askedOfB === 1, [a, b])
    await until(() => presences(b).at(-1)?.state === 'waiting', [a, b])
    await a.kill()
    await until(() => withdrawn.count === 1, [b])
    await until(() => presences(b).at(-1)?.attached === 1, [b])
    expect(presences(b).at(-1)).toMatchObject({ attached: 1, clients: ['host-b'] })
    expect(b.audit.problems).toEqual([])
  })
})
