import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually, isAlive, pidsIn, serverReady, stdioServer } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, chunkTexts, messagesOf, toolNamesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * stdio MCP servers end to end: the built binary spawns the test server for a session, offers its
 * tools (namespaced, with their schemas) to the scripted model, runs the calls, reports servers
 * that fail, time out or die, cancels calls, and leaves no process behind.
 */

const start = openAiAgents()
const SECRET = 'mcp-secret-value-4711'

const call = (id: string, name: string, args: unknown): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

async function newSession(run: OpenAiAgent, mcpServers: unknown[]): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers } as never)
  return sessionId
}

/** Waits until the session's servers named `servers` are connected (they start in the background). */
async function ready(run: OpenAiAgent, sessionId: string, ...servers: string[]): Promise<void> {
  for (const server of servers) await serverReady(() => run.agent.stderr, sessionId, server)
}

describe('stdio MCP servers', () => {
  it('offers the tools namespaced with their schemas, calls them, passes env, never logs the secret', async () => {
    const run = await start({
      script: [
        call('c1', 'mcp__files__echo', { text: 'hi' }),
        call('c2', 'mcp__files__env', { name: 'MCP_TOKEN' }),
        say('done'),
      ],
      args: (scratch) => ['--transcript', join(scratch, 't.jsonl')],
    })
    const sessionId = await newSession(run, [stdioServer('files', [], { MCP_TOKEN: SECRET })])
    await ready(run, sessionId, 'files')
    expect((await run.prompt(sessionId, 'use the server')).stopReason).toBe('end_turn')

    const first = run.fake.requests[0]
    expect(toolNamesOf(first)).toEqual(
      expect.arrayContaining(['mcp__files__echo', 'mcp__files__env', 'mcp__files__slow', 'mcp__files__die']),
    )
    const echo = ((first?.body?.tools ?? []) as { function: { name: string; parameters: unknown } }[]).find(
      (t) => t.function.name === 'mcp__files__echo',
    )
    expect(echo?.function.parameters).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    })
    expect(messagesOf(run.fake.requests[2]).slice(-3)).toEqual([
      expect.objectContaining({ role: 'tool', tool_call_id: 'c1', content: 'echo: hi' }),
      expect.objectContaining({ role: 'assistant' }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'c2', content: 'set' }),
    ])
    // read-only tools (readOnlyHint) run without asking
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toEqual([])
    const calls = updatesOfKind(run.updatesOf(sessionId), 'tool_call')
    expect(calls[0]?.update).toMatchObject({ title: 'files: echo', kind: 'read', rawInput: { text: 'hi' } })
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'mcp:connected')?.data).toEqual({
      server: 'files',
      tools: ['mcp__files__echo', 'mcp__files__env', 'mcp__files__slow', 'mcp__files__die'],
    })

    await expectCleanExit(run)
    for (const file of run.storeFiles()) expect(file.text).not.toContain(SECRET)
    expect(run.agent.stderr).not.toContain(SECRET)
    const transcript = readFileSync(join(run.scratch, 't.jsonl'), 'utf8')
    expect(transcript).toContain('"mcpServers"')
    expect(transcript).toContain('"MCP_TOKEN"')
    expect(transcript).not.toContain(SECRET)
    expect(run.agent.audit.entries.some((e) => e.dir === 'out' && e.line.includes(SECRET))).toBe(false)
  })

  it('a server that fails to start, or cannot be spawned, is reported and the session goes on', async () => {
    const run = await start({ script: [say('still here')] })
    const sessionId = await newSession(run, [
      stdioServer('broken', ['--fail-start']),
      { name: 'missing', command: '/nonexistent/mcp-server', args: [], env: [] },
      stdioServer('good'),
    ])
    await eventually(() => {
      const said = chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
      return said.includes('"missing"') && said.includes('"broken"')
    })
    const notices = chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
    expect(notices).toMatch(/MCP server "broken" could not start: .+\. Its tools are not available\./)
    expect(notices).toMatch(/MCP server "missing" could not start: .*ENOENT.*/)
    const out = run.agent.audit.entries
      .filter((e) => e.dir === 'out')
      .map((e) => e.message as Record<string, never>)
    const answered = out.findIndex(
      (m) => (m.result as { sessionId?: string } | undefined)?.sessionId === sessionId,
    )
    const firstNotice = out.findIndex((m) => m.method === 'session/update')
    expect(answered).toBeGreaterThanOrEqual(0)
    expect(firstNotice).toBeGreaterThan(answered)
    await ready(run, sessionId, 'good')
    expect((await run.prompt(sessionId, 'hello')).stopReason).toBe('end_turn')
    const offered = toolNamesOf(run.fake.requests[0])
    expect(offered.filter((n) => n.startsWith('mcp__'))).toEqual([
      'mcp__good__die',
      'mcp__good__echo',
      'mcp__good__env',
      'mcp__good__slow',
    ])
    const failed = run.loggedEvents(sessionId).filter((e) => e.type === 'mcp:failed')
    expect(failed.map((e) => e.data.server).sort()).toEqual(['broken', 'missing'])
    await expectCleanExit(run)
  })

  it('a server that never answers initialize times out (--mcp-timeout-ms) without hanging session/new', async () => {
    const run = await start({ script: [say('ok')], args: ['--mcp-timeout-ms', '800'] })
    const pidfile = join(run.scratch, 'pids')
    const began = Date.now()
    const sessionId = await newSession(run, [stdioServer('sleepy', ['--hang', '--pidfile', pidfile])])
    expect(Date.now() - began).toBeLessThan(6000)
    await eventually(() =>
      chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('').includes('sleepy'),
    )
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')).toMatch(
      /"sleepy" could not start: .*time/i,
    )
    await eventually(() => pidsIn(pidfile).every((pid) => !isAlive(pid)))
    expect((await run.prompt(sessionId, 'hi')).stopReason).toBe('end_turn')
    await expectCleanExit(run)
  })

  it('a server that dies mid-call: the call fails, the user is told, its tools are withdrawn, the turn goes on', async () => {
    const run = await start({
      script: [call('c1', 'mcp__flaky__die', {}), say('it died'), say('next turn')],
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => ({
          outcome: { outcome: 'selected', optionId: 'allow_once' },
        }))
      },
    })
    const sessionId = await newSession(run, [stdioServer('flaky')])
    await ready(run, sessionId, 'flaky')
    expect((await run.prompt(sessionId, 'call die')).stopReason).toBe('end_turn')
    const result = messagesOf(run.fake.requests[1]).at(-1) as { role: string; content: string }
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'c1' })
    expect(result.content).toMatch(/^Error: /)
    expect(toolNamesOf(run.fake.requests[1]).filter((n) => n.startsWith('mcp__'))).toEqual([])
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')).toContain(
      'MCP server "flaky" stopped working',
    )
    expect(run.loggedEvents(sessionId).filter((e) => e.type === 'mcp:failed')).toHaveLength(1)
    expect((await run.prompt(sessionId, 'again')).stopReason).toBe('end_turn')
    await expectCleanExit(run)
  })

  it('cancel during an MCP call: the server is told (notifications/cancelled) and the turn ends cancelled', async () => {
    const run = await start({ script: [call('c1', 'mcp__srv__slow', { ms: 60_000 })] })
    const pidfile = join(run.scratch, 'pids')
    const sessionId = await newSession(run, [stdioServer('srv', ['--pidfile', pidfile])])
    await ready(run, sessionId, 'srv')
    const prompting = run.prompt(sessionId, 'be slow')
    await eventually(() =>
      updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').some(
        (u) => u.update.status === 'in_progress',
      ),
    )
    // The server has the call (cancelling before it was sent would leave it nothing to be told).
    await eventually(() => existsSync(`${pidfile}.started`))
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompting).stopReason).toBe('cancelled')
    await eventually(() => existsSync(`${pidfile}.cancelled`))
    await expectCleanExit(run)
  })

  it('mcp:connected is logged when a server connects with tools the log does not already say, not on every load', async () => {
    const run = await start({ script: [] })
    const files = stdioServer('files')
    const sessionId = await newSession(run, [files])
    // Waits until this process's log said `times` times that the server connected (or failed to start).
    const logged = (line: string, times: number) =>
      eventually(() => run.agent.stderr.split(`MCP server ${line}`).length - 1 >= times)
    const connected = (server: string) => `${server} of ${sessionId}: `
    const failed = (server: string) => `${server} of ${sessionId} failed to start`
    await logged(connected('files'), 1)
    const load = (mcpServers: unknown[]) =>
      run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers } as never)
    // The live session keeps its server: nothing connects again.
    await load([files])
    await load([files])
    await run.agent.agent.request('session/resume', { sessionId, cwd: run.cwd, mcpServers: [files] } as never)
    await run.restart()
    await load([files])
    await logged(connected('files'), 1)
    await load([files, stdioServer('more')])
    await logged(connected('more'), 1)
    await load([stdioServer('files', ['--fail-start'])])
    await logged(failed('files'), 1)
    await load([files])
    await logged(connected('files'), 2)
    await run.restart()
    const events = run
      .loggedEvents(sessionId)
      .filter((e) => e.type.startsWith('mcp:'))
      .map((e) => `${e.type} ${(e.data as { server: string }).server}`)
    expect(events).toEqual([
      'mcp:connected files',
      'mcp:connected more',
      'mcp:failed files',
      'mcp:connected files',
    ])
    await expectCleanExit(run)
  })

  it('no orphans: servers stop when their session closes, and when the agent reaches EOF', async () => {
    const run = await start({ script: [] })
    const pidfile = join(run.scratch, 'pids')
    const closing = await newSession(run, [
      stdioServer('a', ['--pidfile', pidfile]),
      stdioServer('b', ['--pidfile', pidfile]),
    ])
    await eventually(() => pidsIn(pidfile).length === 2)
    const first = pidsIn(pidfile)
    expect(first.every(isAlive)).toBe(true)
    await run.agent.agent.request('session/close', { sessionId: closing })
    await eventually(() => first.every((pid) => !isAlive(pid)))

    await newSession(run, [
      stdioServer('c', ['--pidfile', pidfile]),
      stdioServer('d', ['--pidfile', pidfile]),
    ])
    await eventually(() => pidsIn(pidfile).length === 4)
    const second = pidsIn(pidfile).slice(2)
    expect(second.every(isAlive)).toBe(true)
    await expectCleanExit(run)
    await eventually(() => second.every((pid) => !isAlive(pid)))
  })
})
