import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { choose, outcomes } from '../support/cross-questions.js'
import { type Elicit, never } from '../support/question-answers.js'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

/**
 * Two clients on one session in one `dsh-acp serve` process: an MCP server's URL elicitation (a
 * sign-in page) goes to every attached client that advertised `elicitation.url`, the first answer
 * settles it, and once the server says the sign-in completed, every client asked is sent
 * `elicitation/complete`.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const ASKING_SERVER = resolve(import.meta.dirname, '../support/mcp/asking-server.mjs')
const OPEN_LINK = {
  turns: [
    [
      [{ toolCall: { name: 'mcp__asker__open_link', input: { url: 'https://example.com/sign-in' } } }],
      [{ text: 'signed in' }],
    ],
  ],
}

interface UrlClient extends RemoteClient {
  readonly completed: unknown[]
}

async function client(remote: RemoteServer, name: string, elicit: Elicit, url = true): Promise<UrlClient> {
  const completed: unknown[] = []
  const made = remote.client('ws', {
    setupClient: (app) => {
      app.onRequest('session/request_permission', ({ params }) => choose('allow_once')(params))
      app.onRequest('elicitation/create', ({ params, signal }) => elicit(params, signal))
      app.onNotification('elicitation/complete', ({ params }) => {
        completed.push(params)
      })
    },
  })
  cleanup.push(() => made.close())
  await made.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { elicitation: url ? { form: {}, url: {} } : { form: {} } },
    clientInfo: { name, version: '1' },
  })
  return Object.assign(made, { completed })
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve))
}

describe('a URL elicitation answered once', () => {
  it('goes to every client that can open a URL; the first answer settles it; every client asked is told it completed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-url-'))
    writeFileSync(join(dir, 'model.json'), JSON.stringify(OPEN_LINK))
    const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
    cleanup.push(
      () => remote.stop(),
      () => rmSync(dir, { recursive: true, force: true }),
    )
    const withdrawn = { count: 0 }
    const asked: string[] = []
    const waits = (name: string): Elicit => {
      return (params, signal) => {
        asked.push(name)
        return never(withdrawn)(params, signal, { action: 'cancel' as const })
      }
    }
    const a = await client(remote, 'window-a', waits('window-a'))
    const b = await client(remote, 'window-b', async (params) => {
      asked.push('window-b')
      expect(params).toMatchObject({
        mode: 'url',
        url: 'https://example.com/sign-in',
        elicitationId: 'link-1',
      })
      return { action: 'accept' }
    })
    // A client that cannot open a URL is not asked, and told nothing of it.
    const formsOnly = await client(remote, 'forms-only', waits('forms-only'), false)
    const mcpServers: acp.McpServer[] = [{ name: 'asker', command: 'node', args: [ASKING_SERVER], env: [] }]
    const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers })
    for (const other of [formsOnly, b])
      await other.agent.request('session/load', { sessionId, cwd: a.cwd, mcpServers })
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'sign in' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(asked.sort()).toEqual(['window-a', 'window-b'])
    await until(() => withdrawn.count === 1 && a.completed.length === 1 && b.completed.length === 1)
    expect(a.completed).toEqual([{ elicitationId: 'link-1' }])
    expect(b.completed).toEqual([{ elicitationId: 'link-1' }])
    // Every client sees the outcome (after the permission's), the one not asked too.
    const answered = (c: RemoteClient) => outcomes(c).filter((o) => o.action !== undefined)
    await until(
      () => answered(a).length === 1 && answered(b).length === 1 && answered(formsOnly).length === 1,
    )
    expect(answered(a)).toEqual([
      { toolCallId: expect.any(String), state: 'answered', action: 'accept', answeredBy: 'window-b' },
    ])
    expect(answered(b)).toEqual(answered(a))
    expect(answered(formsOnly)).toEqual(answered(a))
    expect(formsOnly.completed).toEqual([])
    // The server was told the answer B gave: the tool's result says so.
    const results = a.updates.flatMap((u) =>
      u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed'
        ? JSON.stringify(u.update.content ?? u.update.rawOutput ?? '')
        : [],
    )
    expect(results.join('')).toContain('accept')
  })
})
