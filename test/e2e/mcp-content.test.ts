import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type * as acp from '@agentclientprotocol/sdk'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, messagesOf, toolNamesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * MCP tool results as an editor and a model see them (the built binary, a stdio test server):
 * images and resources as ACP content blocks, replayed the same; images as image parts for a model
 * that takes them; progress as in_progress updates; roots/list answered with the session's
 * directories (also for the real @modelcontextprotocol/server-filesystem); untrusted schemas
 * compiled per connection with a linear-time regex engine, a bad tool left out alone; a server's
 * secret hidden in what its tools answer.
 */

const start = openAiAgents()
const CONTENT_SERVER = resolve(import.meta.dirname, '../support/mcp/content-server.mjs')
const SECRET = 'mcp-content-secret-9182'

const call = (id: string, name: string, args: unknown = {}): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

function contentServer(
  name = 'c',
  env: Record<string, string> = {},
  args: string[] = [],
): acp.McpServerStdio {
  return {
    name,
    command: process.execPath,
    args: [CONTENT_SERVER, ...args],
    env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
  }
}

/** A session with `servers`, once each has connected (its `mcp:connected` event is in the log). */
async function sessionWith(run: OpenAiAgent, servers: acp.McpServer[], extra: object = {}): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', {
    cwd: run.cwd,
    mcpServers: servers,
    ...extra,
  })
  await eventually(() => {
    const connected = run.loggedEvents(sessionId).filter((e) => e.type === 'mcp:connected')
    return servers.every((s) => connected.some((e) => e.data.server === s.name))
  })
  return sessionId
}

const completed = (run: OpenAiAgent, sessionId: string, callId: string) =>
  updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').find(
    ({ update }) => update.toolCallId === callId && update.status === 'completed',
  )?.update

describe('MCP tool results', () => {
  it('shows images and resources as content blocks, replays them, and shows the image to an image model', async () => {
    const run = await start({ script: [call('p1', 'mcp__c__picture'), say('seen')], args: ['--image-input'] })
    const sessionId = await sessionWith(run, [contentServer()])
    expect((await run.prompt(sessionId, 'look')).stopReason).toBe('end_turn')

    const live = completed(run, sessionId, 'p1')
    const blocks = ((live?.content ?? []) as { content: { type: string; data?: string } }[]).map(
      (c) => c.content,
    )
    expect(blocks.map((b) => b.type)).toEqual(['text', 'image', 'resource_link', 'resource'])
    expect(blocks[1]).toMatchObject({ type: 'image', mimeType: 'image/png' })
    expect(blocks[2]).toEqual({
      type: 'resource_link',
      uri: 'file:///tmp/picture.png',
      name: 'picture.png',
      mimeType: 'image/png',
    })
    expect(blocks[3]).toEqual({
      type: 'resource',
      resource: { uri: 'file:///tmp/notes.txt', mimeType: 'text/plain', text: 'notes' },
    })
    const image = { data: blocks[1]?.data ?? '' }

    const conversation = messagesOf(run.fake.requests[1]) as { role: string; content: unknown }[]
    expect(conversation.slice(-2)).toEqual([
      expect.objectContaining({
        role: 'tool',
        content: 'a picture:\n[image image/png]\n[resource_link picture.png file:///tmp/picture.png]\nnotes',
      }),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The images of tool call p1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
        ],
      },
    ])

    const replayed = (await run.replay(sessionId)).find(
      (n) => n.update.sessionUpdate === 'tool_call_update' && n.update.status === 'completed',
    )
    expect(replayed?.update).toMatchObject({ content: live?.content })
    await expectCleanExit(run)
  })

  it('a model without image input reads the placeholders only', async () => {
    const run = await start({ script: [call('p1', 'mcp__c__picture'), say('seen')] })
    const sessionId = await sessionWith(run, [contentServer()])
    await run.prompt(sessionId, 'look')
    const conversation = messagesOf(run.fake.requests[1]) as { role: string }[]
    expect(conversation.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('[image image/png]'),
    })
    expect(JSON.stringify(conversation)).not.toContain('image_url')
    await expectCleanExit(run)
  })

  it('shows progress notifications as in_progress updates before the result', async () => {
    const run = await start({ script: [call('g1', 'mcp__c__progress', { n: 3 }), say('ok')] })
    const release = join(run.scratch, 'release')
    const sessionId = await sessionWith(run, [contentServer('c', {}, ['--release', release])])
    const answer = run.prompt(sessionId, 'work')
    const progressOf = () =>
      updatesOfKind(run.updatesOf(sessionId), 'tool_call_update')
        .map((u) => u.update)
        .filter((u) => u.status === 'in_progress' && u.content !== undefined)
    await eventually(() => progressOf().length > 0)
    writeFileSync(release, '')
    await answer
    const updates = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').map((u) => u.update)
    const progress = progressOf()
    expect(progress[0]?.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'Progress: 1 of 3 (33%): step 1' } },
    ])
    expect(updates.indexOf(progress[0] as (typeof updates)[number])).toBeLessThan(
      updates.findIndex((u) => u.status === 'completed'),
    )
    expect(completed(run, sessionId, 'g1')?.rawOutput).toBe('done')
    await expectCleanExit(run)
  })

  it("hides the server's secret in what its tool answers: not stored, sent or shown", async () => {
    const run = await start({ script: [call('s1', 'mcp__c__secret'), say('ok')] })
    const sessionId = await sessionWith(run, [contentServer('c', { MCP_TOKEN: SECRET })])
    await run.prompt(sessionId, 'leak')
    expect(completed(run, sessionId, 's1')?.rawOutput).toBe('the token is ***')
    expect(JSON.stringify(run.fake.requests)).not.toContain(SECRET)
    await expectCleanExit(run)
    for (const file of run.storeFiles()) expect(file.text).not.toContain(SECRET)
    expect(run.agent.audit.entries.some((e) => e.line.includes(SECRET) && e.dir === 'out')).toBe(false)
  })
})

describe('MCP roots', () => {
  it("answers roots/list with the session's cwd and additional directories", async () => {
    const run = await start({ script: [call('r1', 'mcp__c__roots'), say('ok')] })
    const extra = join(run.scratch, 'extra')
    mkdirSync(extra)
    const sessionId = await sessionWith(run, [contentServer()], { additionalDirectories: [extra] })
    await run.prompt(sessionId, 'roots')
    expect(completed(run, sessionId, 'r1')?.rawOutput).toBe(
      `${pathToFileURL(run.cwd).href}\n${pathToFileURL(extra).href}`,
    )
    await expectCleanExit(run)
  })

  it('the real server-filesystem, started without directories, works in the session cwd', async () => {
    const bin = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'))
    const run = await start({ script: [call('f1', 'mcp__fs__list_allowed_directories'), say('ok')] })
    const sessionId = await sessionWith(run, [
      { name: 'fs', command: process.execPath, args: [bin], env: [] },
    ])
    await run.prompt(sessionId, 'where')
    expect(completed(run, sessionId, 'f1')?.rawOutput).toBe(`Allowed directories:\n${realpathSync(run.cwd)}`)
    await expectCleanExit(run)
  })
})

describe('MCP tool schemas', () => {
  it('a catastrophic pattern is checked in linear time (the agent answers at all)', async () => {
    const run = await start({
      script: [call('x1', 'mcp__c__pattern', { s: `${'a'.repeat(34)}b` }), say('ok')],
    })
    const sessionId = await sessionWith(run, [contentServer()])
    expect((await run.prompt(sessionId, 'check')).stopReason).toBe('end_turn')
    const failed = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').find(
      ({ update }) => update.toolCallId === 'x1' && update.status === 'failed',
    )
    expect(failed?.update.rawOutput).toMatch(/^Invalid input for mcp__c__pattern: input.s must match pattern/)
    await expectCleanExit(run)
  })

  it('a tool that is malformed or uses a pattern RE2 cannot run is left out alone, by name', async () => {
    const run = await start({ script: [say('ok')] })
    const sessionId = await sessionWith(run, [contentServer('c', {}, ['--bad'])])
    await eventually(() =>
      chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('').includes('lookahead'),
    )
    const notices = chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
    expect(notices).toMatch(
      /MCP server "c": tool "lookahead": .*pattern "\^\(\?!x\)" is not supported.*That tool is not offered; the server's other tools are\./,
    )
    expect(notices).toMatch(
      /MCP server "c": tool "notobject": it is not a valid MCP tool .*That tool is not offered/,
    )
    expect(notices).not.toContain('Its tools are not available')
    await run.prompt(sessionId, 'hi')
    const offered = toolNamesOf(run.fake.requests[0]).filter((n) => n.startsWith('mcp__'))
    expect(offered).toEqual(
      expect.arrayContaining(['mcp__c__picture', 'mcp__c__pattern', 'mcp__c__withid', 'mcp__c__roots']),
    )
    expect(offered).not.toContain('mcp__c__lookahead')
    expect(offered).not.toContain('mcp__c__notobject')
    await expectCleanExit(run)
  })

  it('a schema with an $id is offered again by a second connection', async () => {
    const run = await start({ script: [say('one'), say('two')] })
    const first = await sessionWith(run, [contentServer()])
    await run.prompt(first, 'one')
    const second = await sessionWith(run, [contentServer()])
    await run.prompt(second, 'two')
    expect(toolNamesOf(run.fake.requests[0])).toContain('mcp__c__withid')
    expect(toolNamesOf(run.fake.requests[1])).toContain('mcp__c__withid')
    expect(notices(run, second)).not.toContain('withid')
    await expectCleanExit(run)
  })
})

const notices = (run: OpenAiAgent, sessionId: string) =>
  chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')

describe('MCP results over streamable HTTP', () => {
  it('are held to the same limits as stdio: a message past 10 MiB fails the call, a result is cut to 4 MiB', async () => {
    const http = await startBigHttpMcp()
    try {
      const run = await start({
        script: [call('b1', 'mcp__h__big', { mb: 12 }), call('b2', 'mcp__h__big', { mb: 5 }), say('ok')],
      })
      const sessionId = await sessionWith(run, [{ type: 'http', name: 'h', url: http.url, headers: [] }])
      await run.prompt(sessionId, 'big')
      const updates = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').map((u) => u.update)
      const tooBig = updates.find((u) => u.toolCallId === 'b1' && u.status === 'failed')
      expect(tooBig?.rawOutput).toMatch(/^mcp__h__big failed: .*larger than the 10485760-byte limit/)
      const cut = completed(run, sessionId, 'b2')
      const text = (cut?.content as { content: { text: string } }[] | undefined)?.[0]?.content.text ?? ''
      expect(text.length).toBeLessThan(4 * 1024 * 1024 + 200)
      expect(text).toMatch(
        /\n\[MCP result cut: it is larger than the 4194304-character limit; its text was cut there\]$/,
      )
      // The model reads the head and both notes: what the MCP limit cut, then what the model limit cut.
      const toolMessages = (messagesOf(run.fake.requests[2]) as { role: string; content: string }[]).filter(
        (m) => m.role === 'tool',
      )
      expect(toolMessages[1]?.content).toMatch(
        /\[output cut for the model: showing the first 30000 of 419\d{4} characters\]$/,
      )
      await expectCleanExit(run)
      for (const file of run.storeFiles()) expect(file.text.length).toBeLessThan(9 * 1024 * 1024)
    } finally {
      await http.close()
    }
  })
})

/** A streamable-HTTP MCP server on 127.0.0.1 with one tool, `big {mb}`: a text of `mb` MiB. */
async function startBigHttpMcp(): Promise<{ url: string; close(): Promise<void> }> {
  const transports: StreamableHTTPServerTransport[] = []
  const http = createServer((req, res) => {
    const sessionId = req.headers['mcp-session-id']
    const known = transports.find((t) => t.sessionId === sessionId)
    const transport =
      known ?? new StreamableHTTPServerTransport({ sessionIdGenerator: () => `s${transports.length}` })
    if (!known) {
      transports.push(transport)
      const server = new Server({ name: 'big', version: '1.0.0' }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'big',
            inputSchema: { type: 'object', properties: { mb: { type: 'number' } } },
            annotations: { readOnlyHint: true },
          },
        ],
      }))
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({
        content: [
          { type: 'text', text: 'x'.repeat(Number(request.params.arguments?.mb ?? 1) * 1024 * 1024) },
        ],
      }))
      void server.connect(transport).then(() => transport.handleRequest(req, res))
      return
    }
    void transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of transports) await transport.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
