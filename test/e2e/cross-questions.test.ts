import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import {
  type Answer,
  answeredTogether,
  choose,
  neverAnswer,
  outcomes,
  presences,
  WRITE_TURNS,
} from '../support/question-answers.js'

// Two built-binary processes over stdio on one store (two editor windows, each with its own
// agent): a permission request of A's turn is asked of B's client too, through the store's notice
// board; the first answer settles it, the tool runs once, both see the outcome; presence counts
// the clients of both processes.

let cleanup: Array<() => unknown> = []
const agents: AgentProcess[] = []
afterEach(async (t) => {
  if (t.task.result?.state === 'fail') for (const agent of agents) console.error(agent.stderr)
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function start(storeDir: string, cwd: string, name: string, answer: Answer): Promise<AgentProcess> {
  const agent = new AgentProcess({
    storeDir,
    cwd,
    args: ['--model', `script:${join(cwd, 'model.json')}`],
    setupClient: (app) =>
      app.onRequest('session/request_permission', ({ params, signal }) => answer(params, signal)),
  })
  agents.push(agent)
  await agent.agent.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name, version: '1' },
  })
  return agent
}

async function until(check: () => boolean, agents: readonly AgentProcess[] = []): Promise<void> {
  while (!check()) {
    const dead = agents.find((agent) => agent.child.exitCode !== null)
    if (dead) throw new Error(`agent exited: ${dead.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const finalStatuses = (c: AgentProcess) =>
  c.updates.flatMap((u) =>
    u.update.sessionUpdate === 'tool_call_update' &&
    (u.update.status === 'completed' || u.update.status === 'failed')
      ? [u.update.status]
      : [],
  )

async function pair(answerA: Answer, answerB: Answer) {
  const store = tempDir('dsh-acp-xq-store-')
  const cwd = tempDir('dsh-acp-xq-cwd-')
  writeFileSync(join(cwd, 'model.json'), JSON.stringify({ turns: WRITE_TURNS }))
  const a = await start(store, cwd, 'window-a', answerA)
  const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
  const b = await start(store, cwd, 'window-b', answerB)
  await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
  return { a, b, sessionId, cwd }
}

describe('questions and presence across processes', () => {
  it("B's client answers a permission request of A's turn: the tool runs once as it said, A's client is withdrawn, both see the outcome", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId, cwd } = await pair(neverAnswer(withdrawn), async (params) => {
      askedOfB++
      return choose('allow_once')(params)
    })
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write it' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(askedOfB).toBe(1)
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    await until(() => withdrawn.count === 1 && outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    expect(outcomes(a)).toEqual([
      { toolCallId: expect.any(String), state: 'answered', optionId: 'allow_once', answeredBy: 'window-b' },
    ])
    expect(outcomes(b)).toEqual(outcomes(a))
    expect(finalStatuses(a)).toEqual(['completed'])
    await until(() => finalStatuses(b).length === 1, [a, b])
    expect(finalStatuses(b)).toEqual(['completed'])
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it('clients of both processes answer in the same moment: one answer wins, the tool runs once, both see the same outcome', async () => {
    const { asked, answer: barrier } = answeredTogether()
    const { a, b, sessionId, cwd } = await pair(barrier('reject_once'), barrier('allow_once'))
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write it' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(asked).toHaveLength(2)
    await until(() => outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    const [seen] = outcomes(a)
    expect(outcomes(a)).toHaveLength(1)
    expect(outcomes(b)).toEqual(outcomes(a))
    const allowed = seen?.optionId === 'allow_once'
    expect(seen?.answeredBy).toBe(allowed ? 'window-b' : 'window-a')
    expect(existsSync(join(cwd, 'made.txt'))).toBe(allowed)
    expect(finalStatuses(a)).toHaveLength(1)
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("presence counts the clients of both processes; when B's client leaves, A is told", async () => {
    const { a, b, sessionId } = await pair(neverAnswer({ count: 0 }), neverAnswer({ count: 0 }))
    await until(() => presences(a).some((p) => p.attached === 2), [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 2, clients: ['window-a', 'window-b'], state: 'idle' })
    await until(() => presences(b).some((p) => p.attached === 2), [a, b])
    expect(presences(b).at(-1)).toMatchObject({ attached: 2, clients: ['window-b', 'window-a'] })
    await b.agent.request('session/close', { sessionId })
    await until(() => presences(a).at(-1)?.attached === 1, [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 1, clients: ['window-a'], state: 'idle' })
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("a question of A is withdrawn from B's client when A dies", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId } = await pair(neverAnswer({ count: 0 }), (params, signal) => {
      askedOfB++
      return neverAnswer(withdrawn)(params, signal)
    })
    void a.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] })
      .catch(() => {})
    await until(() => askedOfB === 1, [a, b])
    await a.kill()
    await until(() => withdrawn.count === 1, [b])
    expect(b.audit.problems).toEqual([])
  })
})
