import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as acp from '@agentclientprotocol/sdk'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { eventually } from '../support/mcp/servers.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { updatesOfKind } from '../support/openai-wire.js'

/**
 * Issue 34 #13: what an MCP server answers is masked for its secrets only. A setting such as
 * `ROOT=/home/me/project` stays readable; a variable whose name says it is a secret, or one the
 * user marked (`_meta.dsh.secret`), is masked as before.
 */

const start = openAiAgents()
const FILESYSTEM = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'))
const CONTENT_SERVER = resolve(import.meta.dirname, '../support/mcp/content-server.mjs')

const call = (id: string, name: string): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: '{}' }] }),
})
const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

const filesystem = (env: acp.EnvVariable[]): acp.McpServerStdio => ({
  name: 'fs',
  command: process.execPath,
  args: [FILESYSTEM],
  env,
})

async function sessionWith(run: OpenAiAgent, server: acp.McpServer): Promise<string> {
  const { sessionId } = await run.agent.agent.request('session/new', { cwd: run.cwd, mcpServers: [server] })
  await eventually(() => run.loggedEvents(sessionId).some((e) => e.type === 'mcp:connected'))
  return sessionId
}

/** The raw output of the completed call `callId`. */
async function outputOf(run: OpenAiAgent, server: acp.McpServer): Promise<unknown> {
  const sessionId = await sessionWith(run, server)
  await run.prompt(sessionId, 'go')
  return updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').find(
    ({ update }) => update.status === 'completed',
  )?.update.rawOutput
}

describe('MCP results mask secrets, not settings (issue 34 #13)', () => {
  it("a server configured with ROOT=<the project> shows the project's path in its answers", async () => {
    const run = await start({ script: [call('f1', 'mcp__fs__list_allowed_directories'), say('ok')] })
    const root = realpathSync(run.cwd)
    const output = await outputOf(run, filesystem([{ name: 'ROOT', value: root }]))
    expect(output).toBe(`Allowed directories:\n${root}`)
    await expectCleanExit(run)
  })

  it('a value the user marks as a secret is masked, whatever its name', async () => {
    const run = await start({ script: [call('f1', 'mcp__fs__list_allowed_directories'), say('ok')] })
    const root = realpathSync(run.cwd)
    const marked = { name: 'ROOT', value: root, _meta: { dsh: { secret: true } } }
    expect(await outputOf(run, filesystem([marked]))).toBe('Allowed directories:\n***')
    await expectCleanExit(run)
  })

  it('a variable whose name says token is masked in what the server answers', async () => {
    const run = await start({ script: [call('s1', 'mcp__c__secret'), say('ok')] })
    const server: acp.McpServerStdio = {
      name: 'c',
      command: process.execPath,
      args: [CONTENT_SERVER],
      env: [{ name: 'MCP_TOKEN', value: 'tok-masked-4711' }],
    }
    expect(await outputOf(run, server)).toBe('the token is ***')
    await expectCleanExit(run)
  })
})
