import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually, serverReady, stdioServer } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, toolNamesOf } from '../support/openai-wire.js'

/**
 * MCP servers start in the background: `session/new`, `load` and `fork` are answered without
 * waiting for them, a model request that goes out while one is still starting tells the user, and
 * its tools are offered from the first request after it is ready, in the order of `mcpServers`.
 */

const start = openAiAgents()
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })
/** Far beyond every test's own timeout: a server that never answers would hold a waiting answer that long. */
const NEVER = ['--mcp-timeout-ms', '600000']

const saidTo = (run: OpenAiAgent, sessionId: string) =>
  chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')

/** The MCP tools of a model request, in the order the request lists them. */
function mcpToolsOf(run: OpenAiAgent, request: number): string[] {
  const tools = (run.fake.requests[request]?.body?.tools ?? []) as { function: { name: string } }[]
  return tools.map((tool) => tool.function.name).filter((name) => name.startsWith('mcp__'))
}

describe('MCP servers start in the background', () => {
  it('session/new, load and fork are answered while a server never answers initialize', {
    timeout: 30_000,
  }, async () => {
    const run = await start({ script: [say('without it'), say('again')], args: NEVER })
    const sleepy = stdioServer('sleepy', ['--hang'])
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [sleepy],
    })
    await run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers: [sleepy] })
    const forked = await run.agent.agent.request('session/fork', {
      sessionId,
      cwd: run.cwd,
      mcpServers: [sleepy],
    })
    expect(forked.sessionId).not.toBe(sessionId)

    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0]).some((name) => name.startsWith('mcp__'))).toBe(false)
    // It held the prompt (the whole grace: never started before, no other server) and says so.
    expect(saidTo(run, sessionId)).toMatch(
      /MCP server "sleepy" is still starting \(this prompt waited \d+\.\d s for it\): its tools are offered from the first request to the model after it is ready\./,
    )
    expect(run.agent.stderr).toContain(`MCP server sleepy of ${sessionId} is still starting`)
    // It never came up while that prompt waited: the fork's first prompt does not wait for it.
    expect((await run.prompt(forked.sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(saidTo(run, forked.sessionId)).toContain(
      'MCP server "sleepy" is still starting: its tools are offered from the first request to the model after it is ready.',
    )
    await expectCleanExit(run)
  })

  it('a server that gets ready after a model request is offered from the next one, and the user is told', async () => {
    const run = await start({ script: [say('first'), say('second')], args: NEVER })
    const go = join(run.scratch, 'go')
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('late', ['--wait-for', go])],
    })
    expect((await run.prompt(sessionId, 'one')).stopReason).toBe('end_turn')
    expect(mcpToolsOf(run, 0)).toEqual([])
    writeFileSync(go, '')
    await eventually(() => saidTo(run, sessionId).includes('MCP server "late" is ready'))
    expect(saidTo(run, sessionId)).toContain('MCP server "late" is ready: 4 tools are offered from now on.')
    expect((await run.prompt(sessionId, 'two')).stopReason).toBe('end_turn')
    expect(mcpToolsOf(run, 1)).toEqual([
      'mcp__late__echo',
      'mcp__late__env',
      'mcp__late__slow',
      'mcp__late__die',
    ])
    await expectCleanExit(run)
  })

  it('a prompt sent while a server is still starting waits a moment for it: its first model request has the tools', async () => {
    const run = await start({ script: [say('with it')] })
    const go = join(run.scratch, 'go')
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('moment', ['--wait-for', go])],
    })
    const answer = run.prompt(sessionId, 'use it')
    writeFileSync(go, '')
    expect((await answer).stopReason).toBe('end_turn')
    expect(mcpToolsOf(run, 0)).toEqual([
      'mcp__moment__echo',
      'mcp__moment__env',
      'mcp__moment__slow',
      'mcp__moment__die',
    ])
    expect(saidTo(run, sessionId)).not.toContain('still starting')
    await expectCleanExit(run)
  })

  it('session/cancel ends the wait for a server still starting', { timeout: 30_000 }, async () => {
    const run = await start({ script: [say('never sent')], args: NEVER })
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('sleepy', ['--hang'])],
    })
    const answer = run.prompt(sessionId, 'hi')
    await eventually(() => run.agent.stderr.includes(`the model request of ${sessionId} waits up to`))
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await answer).stopReason).toBe('cancelled')
    expect(run.fake.requests).toHaveLength(0)
    await expectCleanExit(run)
  })

  it('tools keep the order of mcpServers and of each server, whichever server is ready first', async () => {
    const run = await start({ script: [say('ordered')] })
    const go = join(run.scratch, 'go')
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('first', ['--wait-for', go]), stdioServer('second')],
    })
    await serverReady(() => run.agent.stderr, sessionId, 'second')
    writeFileSync(go, '')
    await serverReady(() => run.agent.stderr, sessionId, 'first')
    expect((await run.prompt(sessionId, 'list')).stopReason).toBe('end_turn')
    const tools = ['echo', 'env', 'slow', 'die']
    expect(mcpToolsOf(run, 0)).toEqual([
      ...tools.map((tool) => `mcp__first__${tool}`),
      ...tools.map((tool) => `mcp__second__${tool}`),
    ])
    await expectCleanExit(run)
  })

  it('the MCP client reports the version initialize reports, which is package.json’s', async () => {
    const run = await start({ script: [] })
    const info = join(run.scratch, 'client-info.json')
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('v', ['--client-info', info])],
    })
    await serverReady(() => run.agent.stderr, sessionId, 'v')
    await eventually(() => {
      try {
        return readFileSync(info, 'utf8') !== ''
      } catch {
        return false
      }
    })
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8'))
    const init = run.agent.audit.entries.find((e) => e.dir === 'out')?.message as {
      result: { agentInfo: { version: string } }
    }
    expect(init.result.agentInfo.version).toBe(pkg.version)
    expect(JSON.parse(readFileSync(info, 'utf8'))).toEqual({ name: 'dsh-acp', version: pkg.version })
    await expectCleanExit(run)
  })

  it('with --log-level silent, a tool schema with a format ajv does not know writes nothing to stderr', async () => {
    const echo = { id: 'c1', name: 'mcp__u__echo', arguments: '{"text":"x"}' }
    const run = await start({
      script: [say('early'), { stream: completionStream({ toolCalls: [echo] }) }, say('done')],
      args: ['--log-level', 'silent'],
    })
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [stdioServer('u', ['--uri-tool'])],
    })
    expect((await run.prompt(sessionId, 'early')).stopReason).toBe('end_turn')
    // Ready: offered to that first request already, or the user was told it is ready now.
    await eventually(
      () =>
        toolNamesOf(run.fake.requests[0]).includes('mcp__u__echo') ||
        saidTo(run, sessionId).includes('MCP server "u" is ready'),
    )
    expect((await run.prompt(sessionId, 'echo')).stopReason).toBe('end_turn')
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'tool/result')?.data).toMatchObject({
      output: 'echo: x',
    })
    await expectCleanExit(run)
    expect(run.agent.stderr).toBe('')
  })
})
