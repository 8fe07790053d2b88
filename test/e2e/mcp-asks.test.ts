import { fileURLToPath } from 'node:url'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { serverReady } from '../support/mcp/servers.js'
import { type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, messagesOf, toolNamesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * Questions end to end with the real `@modelcontextprotocol/server-everything`: it registers its
 * elicitation tools only for clients that advertise elicitation (so what we advertise decides
 * what it offers), its form question reaches the editor as an ACP form naming the server, and its
 * sampling request is answered by the session's model, after the user allows it, with the
 * server's system prompt and limits. And `ask_user` is offered only to editors that show forms.
 */

const start = openAiAgents()
const EVERYTHING = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'))
const everything: acp.McpServerStdio = {
  name: 'everything',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  env: [],
}

const call = (id: string, name: string, args: unknown): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

async function sessionWithEverything(run: OpenAiAgent): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', {
    cwd: run.cwd,
    mcpServers: [everything],
  })
  await serverReady(() => run.agent.stderr, sessionId, 'everything')
  return sessionId
}

const allow = (app: acp.ClientApp) =>
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))

describe('MCP servers that ask, with server-everything', () => {
  it("forwards its form question to an editor that shows forms, naming the server; the answer is the server's", async () => {
    const questions: acp.CreateElicitationRequest[] = []
    const run = await start({
      script: [call('c1', 'mcp__everything__trigger-elicitation-request', {}), say('done')],
      clientCapabilities: { elicitation: { form: {} } },
      setupClient: (app) => {
        allow(app)
        app.onRequest('elicitation/create', ({ params }) => {
          questions.push(params)
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } }
        })
      },
    })
    const sessionId = await sessionWithEverything(run)
    expect((await run.prompt(sessionId, 'ask me')).stopReason).toBe('end_turn')
    const tools = toolNamesOf(run.fake.requests[0])
    expect(tools).toContain('mcp__everything__trigger-elicitation-request')
    expect(tools).not.toContain('mcp__everything__trigger-url-elicitation')
    expect(tools).toContain('ask_user')

    expect(questions).toHaveLength(1)
    const question = questions[0] as acp.CreateElicitationRequest & { requestedSchema: acp.ElicitationSchema }
    expect(question).toMatchObject({ sessionId, toolCallId: 'c1', mode: 'form' })
    expect(question.message).toBe(
      'The MCP server "everything" asks: Please provide inputs for the following fields:',
    )
    const fields = question.requestedSchema.properties ?? {}
    expect(question.requestedSchema.required).toEqual(['name'])
    // MCP's legacy enumNames became a titled one-of; the titled multi select kept its titles
    expect(fields.legacyTitledEnum).toMatchObject({
      type: 'string',
      oneOf: expect.arrayContaining([{ const: 'pet-1', title: 'Cats' }]),
    })
    expect(fields.titledMultipleSelectEnum).toMatchObject({
      type: 'array',
      items: { anyOf: expect.any(Array) },
    })
    expect(fields.integer).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 42 })

    const result = messagesOf(run.fake.requests[1]).at(-1) as { content: string }
    expect(result.content).toContain('User provided the requested information')
    expect(result.content).toContain('- Name: Ada Lovelace')
    expect(run.agent.audit.problems).toEqual([])
  })

  it('advertises no elicitation to servers of an editor without it: the server offers no question tools', async () => {
    const run = await start({ script: [say('nothing to ask')] })
    const sessionId = await sessionWithEverything(run)
    await run.prompt(sessionId, 'hello')
    const tools = toolNamesOf(run.fake.requests[0])
    expect(tools).not.toContain('mcp__everything__trigger-elicitation-request')
    expect(tools).not.toContain('ask_user')
    expect(tools).toContain('mcp__everything__trigger-sampling-request')
  })

  it("answers its sampling request with the session's model once allowed, with its system prompt and limits", async () => {
    const run = await start({
      script: [
        call('c1', 'mcp__everything__trigger-sampling-request', { prompt: 'name a colour', maxTokens: 20 }),
        say('Teal.'),
        say('The server heard teal.'),
      ],
      setupClient: allow,
    })
    const sessionId = await sessionWithEverything(run)
    expect((await run.prompt(sessionId, 'sample')).stopReason).toBe('end_turn')
    const sampling = run.fake.requests[1]?.body ?? {}
    expect(sampling).toMatchObject({ max_tokens: 20, temperature: 0.7 })
    expect(sampling.tools).toBeUndefined()
    expect(sampling.messages).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: 'Resource trigger-sampling-request context: name a colour' },
    ])
    const permissions = agentRequests(run.agent.audit.entries, 'session/request_permission')
    expect(permissions).toHaveLength(2) // the tool call itself, then its sampling request
    expect(JSON.stringify(permissions[1])).toContain('The MCP server \\"everything\\" asks to use the model')
    const result = messagesOf(run.fake.requests[2]).at(-1) as { content: string }
    expect(result.content).toContain('Teal.')
    const done = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').at(-1)
    expect(done?.update).toMatchObject({ toolCallId: 'c1', status: 'completed' })
    expect(run.agent.audit.problems).toEqual([])
  })
})
