import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { choose, outcomes } from '../support/cross-questions.js'
import { type Elicit, never } from '../support/question-answers.js'
import { testResources } from '../support/test-resources.js'

// Two built-binary processes over stdio on one store: an MCP server's URL elicitation of A's turn
// is asked of B's client too (through the store's board); B's answer settles it, A's client is
// withdrawn, and when the server says the sign-in completed, the clients asked in both processes
// are sent `elicitation/complete`.

const resources = testResources()
const ASKING_SERVER = resolve(import.meta.dirname, '../support/mcp/asking-server.mjs')
const OPEN_LINK = {
  turns: [
    [
      [{ toolCall: { name: 'mcp__asker__open_link', input: { url: 'https://example.com/sign-in' } } }],
      [{ text: 'signed in' }],
    ],
  ],
}

interface Window {
  readonly agent: AgentProcess
  readonly completed: unknown[]
}

async function start(store: string, model: string, name: string, elicit: Elicit): Promise<Window> {
  const completed: unknown[] = []
  const agent = resources.start({
    storeDir: store,
    args: ['--model', `script:${model}`],
    setupClient: (app) => {
      app.onRequest('session/request_permission', ({ params }) => choose('allow_once')(params))
      app.onRequest('elicitation/create', ({ params, signal }) => elicit(params, signal))
      app.onNotification('elicitation/complete', ({ params }) => {
        completed.push(params)
      })
    },
  })
  await agent.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { elicitation: { form: {}, url: {} } },
    clientInfo: { name, version: '1' },
  })
  return { agent, completed }
}

async function until(check: () => boolean, agents: readonly AgentProcess[]): Promise<void> {
  while (!check()) {
    const dead = agents.find((agent) => agent.child.exitCode !== null)
    if (dead) throw new Error(`agent exited: ${dead.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('a URL elicitation across processes', () => {
  it("B's client opens the link A's turn asks for: A's client is withdrawn, both are told it completed and see the outcome", async () => {
    const store = resources.tempDir('dsh-acp-xurl-store-')
    const model = join(resources.tempDir('dsh-acp-xurl-model-'), 'model.json')
    writeFileSync(model, JSON.stringify(OPEN_LINK))
    const withdrawn = { count: 0 }
    const a = await start(store, model, 'window-a', (params, signal) =>
      never(withdrawn)(params, signal, { action: 'cancel' as const }),
    )
    const mcpServers: acp.McpServer[] = [{ name: 'asker', command: 'node', args: [ASKING_SERVER], env: [] }]
    const { sessionId } = await a.agent.agent.request('session/new', { cwd: a.agent.cwd, mcpServers })
    let askedOfB = 0
    const b = await start(store, model, 'window-b', async (params) => {
      askedOfB++
      expect(params).toMatchObject({
        mode: 'url',
        elicitationId: 'link-1',
        url: 'https://example.com/sign-in',
      })
      return { action: 'accept' }
    })
    await b.agent.agent.request('session/load', { sessionId, cwd: a.agent.cwd, mcpServers: [] })
    const answer = await a.agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'sign in' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(askedOfB).toBe(1)
    const both = [a.agent, b.agent]
    await until(() => withdrawn.count === 1 && a.completed.length === 1 && b.completed.length === 1, both)
    expect(a.completed).toEqual([{ elicitationId: 'link-1' }])
    expect(b.completed).toEqual([{ elicitationId: 'link-1' }])
    const answered = (w: Window) => outcomes(w.agent).filter((o) => o.action !== undefined)
    await until(() => answered(a).length === 1 && answered(b).length === 1, both)
    expect(answered(a)).toEqual([
      { toolCallId: expect.any(String), state: 'answered', action: 'accept', answeredBy: 'window-b' },
    ])
    expect(answered(b)).toEqual(answered(a))
    // The server was told B's answer: the tool's result says so.
    const result = a.agent.updates.find(
      (u) => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed',
    )
    expect(JSON.stringify(result?.update)).toContain('accept')
    expect([...a.agent.audit.problems, ...b.agent.audit.problems]).toEqual([])
  })
})
