import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigHome } from '../support/config-home.js'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts } from '../support/openai-wire.js'

/**
 * The real server-filesystem, started with a directory outside the session's cwd: offered MCP
 * roots it serves the session's directories instead (and the user is told); with roots turned off
 * for it (`roots: false` in the configuration file, `_meta.dsh.roots: false` in mcpServers) it
 * keeps the directory it was configured with.
 */

const start = openAiAgents()
const BIN = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'))
const dirs: string[] = []
let home: ConfigHome | undefined
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  if (home) rmSync(home.home, { recursive: true, force: true })
  home = undefined
})

const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })
const writeCall = (path: string): FakeReply => ({
  stream: completionStream({
    toolCalls: [
      { id: 'w1', name: 'mcp__fs__write_file', arguments: JSON.stringify({ path, content: 'kept' }) },
    ],
  }),
})
const allow = (app: acp.ClientApp) => {
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))
}

function outsideDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-acp-outside-')))
  dirs.push(dir)
  return dir
}

async function connected(run: OpenAiAgent, sessionId: string): Promise<void> {
  await eventually(() => run.loggedEvents(sessionId).some((e) => e.type === 'mcp:connected'))
}

const resultOf = (run: OpenAiAgent, sessionId: string) =>
  run.loggedEvents(sessionId).find((e) => e.type === 'tool/result')?.data

describe('MCP roots and a server’s own directories (real server-filesystem)', () => {
  it('roots: false in the configuration file: a write to the configured folder outside cwd works', async () => {
    const outside = outsideDir()
    home = new ConfigHome()
    home.writeConfig({
      mcpServers: [{ name: 'fs', command: process.execPath, args: [BIN, outside], roots: false }],
    })
    const target = join(outside, 'note.txt')
    const run = await start({ script: [writeCall(target), say('done')], setupClient: allow, env: home.env() })
    const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers: [] })
    await connected(run, sessionId)
    expect((await run.prompt(sessionId, 'write it')).stopReason).toBe('end_turn')
    expect(resultOf(run, sessionId)).not.toMatchObject({ isError: true })
    expect(readFileSync(target, 'utf8')).toBe('kept')
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')).not.toContain('MCP roots')
    await expectCleanExit(run)
  })

  it('_meta.dsh.roots: false in mcpServers does the same', async () => {
    const outside = outsideDir()
    const target = join(outside, 'note.txt')
    const run = await start({ script: [writeCall(target), say('done')], setupClient: allow })
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [
        {
          name: 'fs',
          command: process.execPath,
          args: [BIN, outside],
          env: [],
          _meta: { dsh: { roots: false } },
        },
      ],
    })
    await connected(run, sessionId)
    expect((await run.prompt(sessionId, 'write it')).stopReason).toBe('end_turn')
    expect(readFileSync(target, 'utf8')).toBe('kept')
    await expectCleanExit(run)
  })

  it('with roots (the default) the user is told the roots replaced the directory the server was started with', async () => {
    const outside = outsideDir()
    const target = join(outside, 'note.txt')
    const run = await start({ script: [writeCall(target), say('refused')], setupClient: allow })
    const { sessionId } = await run.agent.agent.request('session/new', {
      cwd: run.cwd,
      mcpServers: [{ name: 'fs', command: process.execPath, args: [BIN, outside], env: [] }],
    })
    const said = () => chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('')
    await eventually(() => said().includes('MCP server "fs" uses the session'))
    expect(said()).toContain(`in place of the ones it was started with (${outside})`)
    expect(said()).toContain('"roots": false')
    await connected(run, sessionId)
    expect((await run.prompt(sessionId, 'write it')).stopReason).toBe('end_turn')
    expect(existsSync(target)).toBe(false)
    expect(JSON.stringify(resultOf(run, sessionId))).toContain('Access denied')
    await expectCleanExit(run)
  })
})
