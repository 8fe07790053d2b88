import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_SERVER_TOOLS, MAX_TOOL_PAGES } from '../../src/agent/mcp/tools/tool-listing.js'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually, isAlive, pidsIn, serverReady, stdioServer } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, toolNamesOf } from '../support/openai-wire.js'

/**
 * What a server cannot do to the agent: a tool list that never ends is cut (pages, tools), and
 * the processes a stdio server starts end with it, however its session or the agent ends.
 */

const start = openAiAgents()
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

const saidTo = (run: OpenAiAgent, sessionId: string) =>
  chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')

async function newSession(run: OpenAiAgent, mcpServers: unknown[]): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers } as never)
  return sessionId
}

describe('MCP tool lists are bounded', () => {
  it('a server whose tools/list always has a next page: the first pages are kept and the user is told', async () => {
    const run = await start({ script: [say('listed')] })
    const sessionId = await newSession(run, [stdioServer('endless', ['--endless-pages'])])
    await serverReady(() => run.agent.stderr, sessionId, 'endless')
    await eventually(() => saidTo(run, sessionId).includes('"endless"'))
    expect(saidTo(run, sessionId)).toContain(
      `MCP server "endless": only its first ${MAX_TOOL_PAGES} tools were listed: its tool list has more than ${MAX_TOOL_PAGES} pages. The rest are not offered.`,
    )
    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0]).filter((name) => name.startsWith('mcp__'))).toHaveLength(
      MAX_TOOL_PAGES,
    )
    await expectCleanExit(run)
  })

  it(`a server with more than ${MAX_SERVER_TOOLS} tools: the first ${MAX_SERVER_TOOLS} are kept and the user is told`, async () => {
    const run = await start({ script: [say('many')] })
    const sessionId = await newSession(run, [
      stdioServer('big', ['--many-tools', String(MAX_SERVER_TOOLS + 50)]),
    ])
    await serverReady(() => run.agent.stderr, sessionId, 'big')
    await eventually(() => saidTo(run, sessionId).includes('"big"'))
    expect(saidTo(run, sessionId)).toContain(
      `MCP server "big": only its first ${MAX_SERVER_TOOLS} tools were listed: it offers more than ${MAX_SERVER_TOOLS} tools.`,
    )
    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    const offered = toolNamesOf(run.fake.requests[0]).filter((name) => name.startsWith('mcp__'))
    expect(offered).toHaveLength(MAX_SERVER_TOOLS)
    await expectCleanExit(run)
  })
})

describe('a stdio MCP server’s own children end with it', () => {
  /** A server that started `sleep 1000`; resolves both pids once both run. */
  async function serverWithChild(
    run: OpenAiAgent,
    name: string,
  ): Promise<{ sessionId: string; pids: number[] }> {
    const pidfile = join(run.scratch, `${name}.pids`)
    const childfile = join(run.scratch, `${name}.child`)
    const sessionId = await newSession(run, [
      stdioServer(name, ['--pidfile', pidfile, '--spawn-child', childfile]),
    ])
    await eventually(() => pidsIn(pidfile).length === 1 && pidsIn(childfile).length === 1)
    const pids = [...pidsIn(pidfile), ...pidsIn(childfile)]
    expect(pids.every(isAlive)).toBe(true)
    return { sessionId, pids }
  }

  it('when its session closes', async () => {
    const run = await start({ script: [] })
    const { sessionId, pids } = await serverWithChild(run, 'closing')
    await run.agent.agent.request('session/close', { sessionId })
    await eventually(() => pids.every((pid) => !isAlive(pid)))
    await expectCleanExit(run)
  })

  it('when the agent reaches stdin EOF', async () => {
    const run = await start({ script: [] })
    const { pids } = await serverWithChild(run, 'eof')
    await expectCleanExit(run)
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })

  it('when the agent gets SIGTERM', async () => {
    const run = await start({ script: [] })
    const { pids } = await serverWithChild(run, 'term')
    const exited = new Promise((resolve) => run.agent.child.once('exit', resolve))
    run.agent.child.kill('SIGTERM')
    await exited
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })

  it('when the server dies by itself', async () => {
    const run = await start({ script: [] })
    const { sessionId, pids } = await serverWithChild(run, 'dying')
    await serverReady(() => run.agent.stderr, sessionId, 'dying')
    process.kill(pids[0] as number, 'SIGKILL')
    await eventually(() => pids.every((pid) => !isAlive(pid)))
    await eventually(() => saidTo(run, sessionId).includes('MCP server "dying" stopped working'))
    await expectCleanExit(run)
  })
})
