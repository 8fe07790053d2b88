import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { completionStream, type FakeScript, fakeServerPerTest } from '../support/fake-openai.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario, type Scenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of questions (test/snapshots/ask-*, mcp-*): the `ask_user` tool answered,
 * declined and cancelled by the turn's cancel (the client's pending question cancelled with
 * `$/cancel_request`); an MCP server's form and URL questions forwarded to the editor; an MCP
 * server's sampling allowed, refused by the user and refused in read-only mode. Each ends with a
 * `session/load` that replays what the log holds.
 */

const fake = fakeServerPerTest()
const modelArgs = (script: FakeScript) => fake.args(script)

const FORMS: acp.ClientCapabilities = { elicitation: { form: {} } }
const ASKING_SERVER = readFileSync(resolve(import.meta.dirname, '../support/mcp/asking-server.mjs'), 'utf8')

function askCall(id: string, input: unknown) {
  return {
    stream: completionStream({ toolCalls: [{ id, name: 'ask_user', arguments: JSON.stringify(input) }] }),
  }
}

function reply(text: string) {
  return { stream: completionStream({ text }) }
}

function toolCall(id: string, name: string, input: unknown) {
  return { stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(input) }] }) }
}

async function load(agent: AgentProcess, sessionId: string, mcpServers: acp.McpServer[] = []) {
  await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers })
}

/** A session with the scenario's asking MCP server (see test/support/mcp/asking-server.mjs). */
async function sessionWithAsker(s: Scenario, agent: AgentProcess): Promise<[string, acp.McpServer[]]> {
  const path = s.script('asking-server.mjs', ASKING_SERVER)
  const servers: acp.McpServer[] = [{ name: 'asker', command: 'node', args: [path], env: [] }]
  const { sessionId } = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: servers })
  return [sessionId, servers]
}

describe('question transcript snapshots', () => {
  it('ask-user-answered: the model asks with options, the user picks one, the answer is the result', async () => {
    const args = await modelArgs([
      askCall('call_q', { question: 'Which database?', options: ['SQLite', 'Postgres'] }),
      reply('Postgres it is.'),
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('elicitation/create', () => ({ action: 'accept', content: { answer: 'Postgres' } }))
        },
      })
      await agent.initialize(FORMS)
      const sessionId = await newSession(agent)
      expect(await prompt(agent, sessionId, 'set up the database')).toMatchObject({ stopReason: 'end_turn' })
      await load(agent, sessionId)
    })
    await expectScenarioSnapshot('ask-user-answered', output)
  })

  it('ask-user-declined: a free-text question the user declines', async () => {
    const args = await modelArgs([
      askCall('call_q', { question: 'What should the app be called?' }),
      reply('I will pick a name.'),
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('elicitation/create', () => ({ action: 'decline' }))
        },
      })
      await agent.initialize(FORMS)
      const sessionId = await newSession(agent)
      expect(await prompt(agent, sessionId, 'name the app')).toMatchObject({ stopReason: 'end_turn' })
      await load(agent, sessionId)
    })
    await expectScenarioSnapshot('ask-user-declined', output)
  })

  it('ask-user-cancelled: session/cancel while the question is open cancels it on the wire', async () => {
    const args = await modelArgs([askCall('call_q', { question: 'Deploy now?', options: ['yes', 'no'] })])
    let promptAnswered: () => void = () => {}
    const answered = new Promise<void>((done) => {
      promptAnswered = done
    })
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          // Holds the question until the client cancels it; answers only after the prompt did, so
          // the transcript's order does not depend on timing.
          app.onRequest('elicitation/create', async ({ signal }) => {
            await new Promise((aborted) => signal.addEventListener('abort', aborted, { once: true }))
            await answered
            throw signal.reason
          })
        },
      })
      await agent.initialize(FORMS)
      const sessionId = await newSession(agent)
      const turn = agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'deploy' }],
      })
      await waitForElicitation(agent)
      await agent.agent.notify('session/cancel', { sessionId })
      expect(await turn).toMatchObject({ stopReason: 'cancelled' })
      promptAnswered()
      await waitForClientAnswer(agent, 0)
      await load(agent, sessionId)
    })
    await expectScenarioSnapshot('ask-user-cancelled', output)
  })

  it('mcp-elicitation: an MCP server asks a form and a URL question; the editor shows them, naming it', async () => {
    const args = await modelArgs([
      toolCall('call_n', 'mcp__asker__ask_name', {}),
      toolCall('call_l', 'mcp__asker__open_link', { url: 'https://example.com/sign-in' }),
      reply('Thanks, Ada.'),
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => ({
            outcome: { outcome: 'selected', optionId: 'allow_once' },
          }))
          app.onRequest('elicitation/create', ({ params }) =>
            params.mode === 'form'
              ? { action: 'accept', content: { name: 'Ada', color: 'g' } }
              : { action: 'accept' },
          )
        },
      })
      await agent.initialize({ elicitation: { form: {}, url: {} } })
      const [sessionId, servers] = await sessionWithAsker(s, agent)
      expect(await prompt(agent, sessionId, 'greet me')).toMatchObject({ stopReason: 'end_turn' })
      await load(agent, sessionId, servers)
    })
    await expectScenarioSnapshot('mcp-elicitation', output)
  })

  it('mcp-sampling: sampling allowed (the model answers the server), refused by the user, refused read-only', async () => {
    const args = await modelArgs([
      toolCall('call_1', 'mcp__asker__summarize', { text: 'a long story' }),
      reply('A story, briefly.'),
      reply('The summary is in.'),
      toolCall('call_2', 'mcp__asker__summarize', { text: 'another story' }),
      reply('You refused.'),
      toolCall('call_3', 'mcp__asker__summarize', { text: 'a third story' }),
      reply('Read-only refuses it.'),
    ])
    const output = await runScenario(async (s) => {
      const answers = ['allow_once', 'reject_once']
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => ({
            outcome: { outcome: 'selected', optionId: answers.shift() ?? 'reject_once' },
          }))
        },
      })
      await agent.initialize({})
      const [sessionId, servers] = await sessionWithAsker(s, agent)
      expect(await prompt(agent, sessionId, 'summarize a long story')).toMatchObject({
        stopReason: 'end_turn',
      })
      expect(await prompt(agent, sessionId, 'summarize another')).toMatchObject({ stopReason: 'end_turn' })
      await agent.agent.request('session/set_mode', { sessionId, modeId: 'read-only' })
      expect(await prompt(agent, sessionId, 'and a third')).toMatchObject({ stopReason: 'end_turn' })
      await load(agent, sessionId, servers)
    })
    await expectScenarioSnapshot('mcp-sampling', output)
  })
})

/** Resolves once the agent has sent `elicitation/create`. */
async function waitForElicitation(agent: AgentProcess): Promise<void> {
  await waitFor(agent, () => agent.audit.outgoing().some((m) => m.method === 'elicitation/create'))
}

/** Resolves once the client has written its answer to the agent's request `id`. */
async function waitForClientAnswer(agent: AgentProcess, id: number): Promise<void> {
  await waitFor(agent, () =>
    agent.audit.entries.some((e) => {
      const m = e.message as { id?: unknown; method?: unknown } | undefined
      return e.dir === 'in' && m?.id === id && m.method === undefined
    }),
  )
}

/** Polls `check` until it holds (the agent exiting first fails). */
async function waitFor(agent: AgentProcess, check: () => boolean): Promise<void> {
  while (!check()) {
    if (agent.child.exitCode !== null) throw new Error(`the agent exited: ${agent.stderr}`)
    await new Promise((done) => setTimeout(done, 5))
  }
}
