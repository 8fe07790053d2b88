import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually, serverReady } from '../support/mcp/servers.js'
import { type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, chunkTexts, updatesOfKind } from '../support/openai-wire.js'

/**
 * Issue 34 #9: an MCP server's sampling requests are bounded. One server has at most one sampling
 * question open at a time, and at most 10 sampling requests per turn (`limits.mcpSamplingPerTurn`),
 * after which its requests of the turn are refused and the user is told.
 */

const start = openAiAgents()
const SERVER = resolve(import.meta.dirname, '../support/mcp/sampling-server.mjs')
const sampling: acp.McpServerStdio = { name: 'sampler', command: process.execPath, args: [SERVER], env: [] }

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const call = (args: object): FakeReply => ({
  stream: completionStream({
    toolCalls: [{ id: 'c1', name: 'mcp__sampler__sample_many', arguments: JSON.stringify(args) }],
  }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })
const answers = (n: number) => Array.from({ length: n }, (_, i) => say(`answer ${i + 1}`))

/** A config home whose config.json says `config`. */
function configHome(config: object): string {
  const home = mkdtempSync(join(tmpdir(), 'dsh-sampling-'))
  dirs.push(home)
  mkdirSync(join(home, 'dsh-acp'))
  writeFileSync(join(home, 'dsh-acp', 'config.json'), JSON.stringify(config))
  return home
}

async function session(run: OpenAiAgent): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers: [sampling] })
  await serverReady(() => run.agent.stderr, sessionId, 'sampler')
  return sessionId
}

/** The permission questions about sampling the agent sent. */
function samplingQuestions(run: OpenAiAgent): unknown[] {
  return agentRequests(run.agent.audit.entries, 'session/request_permission').filter((r) =>
    JSON.stringify(r).includes('asks to use the model'),
  )
}

function toolOutput(run: OpenAiAgent, sessionId: string): unknown {
  return updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').find(
    ({ update }) => update.toolCallId === 'c1' && update.status === 'completed',
  )?.update.rawOutput
}

/** The text of every agent message of the session. */
function agentText(run: OpenAiAgent, sessionId: string): string {
  return chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
}

const allowEach = (app: acp.ClientApp) =>
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))

describe('sampling requests of one MCP server are bounded (issue 34 #9)', () => {
  it('a turn asks about at most 10 of them; the rest are refused and the user is told', async () => {
    const run = await start({
      script: [call({ count: 30 }), ...answers(10), say('done')],
      setupClient: allowEach,
    })
    const sessionId = await session(run)
    expect((await run.prompt(sessionId, 'go')).stopReason).toBe('end_turn')
    expect(samplingQuestions(run)).toHaveLength(10)
    expect(toolOutput(run, sessionId)).toBe(
      'answered 10, refused 20: MCP error -1: Sampling refused: the server made more than 10 sampling requests in this turn',
    )
    expect(agentText(run, sessionId)).toContain(
      'MCP server "sampler" asked for the model more than 10 times in this turn',
    )
    expect(run.agent.audit.problems).toEqual([])
  })

  it('the budget is limits.mcpSamplingPerTurn of the configuration, and a new turn has it anew', async () => {
    const run = await start({
      script: [call({ count: 4 }), ...answers(2), say('one'), call({ count: 4 }), ...answers(2), say('two')],
      setupClient: allowEach,
      env: { XDG_CONFIG_HOME: configHome({ limits: { mcpSamplingPerTurn: 2 } }) },
    })
    const sessionId = await session(run)
    await run.prompt(sessionId, 'first')
    expect(toolOutput(run, sessionId)).toMatch(/^answered 2, refused 2: /)
    await run.prompt(sessionId, 'second')
    expect(samplingQuestions(run)).toHaveLength(4)
  })

  it('while one of its sampling questions is open, its other requests are refused, not asked', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'dsh-sampling-')), 'refused')
    dirs.push(join(marker, '..'))
    let open = 0
    let overlapped = false
    const run = await start({
      script: [call({ count: 5, parallel: true, marker }), say('answer'), say('done')],
      setupClient: (app) =>
        app.onRequest('session/request_permission', async ({ params }) => {
          if (!JSON.stringify(params.toolCall).includes('asks to use the model'))
            return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
          if (open > 0) {
            overlapped = true
            return { outcome: { outcome: 'selected', optionId: 'reject_once' } }
          }
          open++
          // Held open until the server has seen its other four requests end.
          await eventually(() => existsSync(marker))
          open--
          return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
        }),
    })
    const sessionId = await session(run)
    expect((await run.prompt(sessionId, 'go')).stopReason).toBe('end_turn')
    expect(overlapped).toBe(false)
    expect(samplingQuestions(run)).toHaveLength(1)
    expect(toolOutput(run, sessionId)).toBe(
      'answered 1, refused 4: MCP error -1: Sampling refused: another sampling request of this server awaits the user',
    )
  })
})
