import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

/**
 * Two clients on one session in one `dsh-acp serve` process, each writing it: what one appends
 * while the other's own call writes (its prompt's turn) reaches the other too, in log order.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const seqOf = (u: acp.SessionNotification) => (u._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq
/** A tool call's live status (pending while asked, in progress): news about its own seq. */
const callNews = (u: acp.SessionNotification) =>
  u.update.sessionUpdate === 'tool_call_update' && ['pending', 'in_progress'].includes(u.update.status ?? '')

describe('a change by one client while the other prompts', () => {
  it('reaches the prompting client during its own turn, in log order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-writers-'))
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const call = { name: 'write_text_file', input: { path: 'f.txt', content: 'x\n' } }
    writeFileSync(
      join(dir, 'model.json'),
      JSON.stringify({ turns: [[[{ toolCall: call }], [{ text: 'done' }]]] }),
    )
    const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
    cleanup.push(() => remote.stop())
    let sessionId = ''
    let b: RemoteClient | undefined
    // A is asked for permission mid-turn: B sets the mode first, then A allows the write.
    const a = remote.client('ws', {
      setupClient: (app) =>
        app.onRequest('session/request_permission', async ({ params }) => {
          await b?.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' })
          const allow = params.options.find((o) => o.kind === 'allow_once')
          return { outcome: { outcome: 'selected' as const, optionId: allow?.optionId ?? '' } }
        }),
    })
    // B is asked too; it leaves the answer to A.
    b = remote.client('ws', {
      setupClient: (app) => app.onRequest('session/request_permission', () => new Promise(() => {})),
    })
    cleanup.push(
      () => a.close(),
      () => b?.close(),
    )
    await a.initialize()
    await b.initialize()
    sessionId = (await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })).sessionId
    await b.agent.request('session/load', { sessionId, cwd: b.cwd, mcpServers: [] })
    const from = a.updates.length
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] })
    const seen = a.updates.slice(from).filter((u) => u.sessionId === sessionId && !callNews(u))
    const mode = seen.find((u) => u.update.sessionUpdate === 'current_mode_update')
    expect(mode?.update).toMatchObject({ currentModeId: 'accept-edits' })
    const seqs = seen.flatMap((u) => seqOf(u) ?? [])
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
  })
})
