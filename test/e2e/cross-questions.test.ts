import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { type Answer, crossQuestionScenarios, WRITE_MODEL } from '../support/cross-questions.js'

// Two built-binary processes over stdio on one store (two editor windows, each with its own
// agent): a permission request of A's turn is asked of B's client too, through the store's notice
// board; the first answer settles it, the tool runs once, both see the outcome; presence counts
// the clients of both processes. (The same scenarios between two hosts on PostgreSQL:
// postgres-board.test.ts.)

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

describe('questions and presence across processes', () => {
  crossQuestionScenarios(async (answerA, answerB) => {
    const store = tempDir('dsh-acp-xq-store-')
    const cwd = tempDir('dsh-acp-xq-cwd-')
    writeFileSync(join(cwd, 'model.json'), JSON.stringify(WRITE_MODEL))
    const a = await start(store, cwd, 'window-a', answerA)
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    const b = await start(store, cwd, 'window-b', answerB)
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    return { a, b, sessionId, cwd }
  })
})
