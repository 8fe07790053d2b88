import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { answeredTogether, choose, outcomes, presences, until } from '../support/cross-questions.js'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

/**
 * Several clients on one session in one process: a permission request goes to every attached
 * client, the first answer settles it, the others are sent `$/cancel_request` for theirs, and all
 * see the outcome (`session_info_update` with `_meta.dsh.question`); presence
 * (`_meta.dsh.presence`) says who is attached and what the session does.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

type App = Parameters<NonNullable<Parameters<RemoteServer['client']>[1]>['setupClient'] & {}>[0]
type Answer = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>

const WRITE = [
  [
    [{ toolCall: { name: 'write_text_file', input: { path: 'made.txt', content: 'made\n' } } }],
    [{ text: 'done' }],
  ],
]

async function server(turns: unknown = WRITE): Promise<{ remote: RemoteServer; cwd: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-questions-'))
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
  cleanup.push(
    () => remote.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  )
  return { remote, cwd: dir }
}

type Elicit = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>

async function client(
  remote: RemoteServer,
  cwd: string,
  name: string,
  answer: Answer,
  elicit?: Elicit,
): Promise<RemoteClient> {
  const made = remote.client('ws', {
    cwd,
    setupClient: (app: App) => {
      app.onRequest('session/request_permission', ({ params, signal }) => answer(params, signal))
      if (elicit) app.onRequest('elicitation/create', ({ params, signal }) => elicit(params, signal))
    },
  })
  cleanup.push(() => made.close())
  await made.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: elicit ? { elicitation: { form: {} } } : {},
    clientInfo: { name, version: '1' },
  })
  return made
}

const toolStatuses = (c: RemoteClient) =>
  c.updates.flatMap((u) =>
    u.update.sessionUpdate === 'tool_call_update' && u.update.status ? [u.update.status] : [],
  )

describe('questions answered once', () => {
  it('two clients answer the same permission request in the same millisecond: one answer wins, the tool runs once, both see the same outcome', async () => {
    const { remote, cwd } = await server()
    // Both answer only once both were asked, then in the same event-loop turn of the test.
    const together = answeredTogether()
    const a = await client(remote, cwd, 'window-a', together.answer('allow_once'))
    const b = await client(remote, cwd, 'window-b', together.answer('reject_once'))
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write it' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(together.asked()).toBe(2)
    await until(() => outcomes(a).length > 0 && outcomes(b).length > 0)
    const [seenByA] = outcomes(a)
    expect(outcomes(a)).toEqual(outcomes(b))
    expect(outcomes(a)).toHaveLength(1)
    expect(seenByA?.state).toBe('answered')
    // The tool ran once, as the winning answer said.
    const allowed = seenByA?.optionId === 'allow_once'
    expect(seenByA?.answeredBy).toBe(allowed ? 'window-a' : 'window-b')
    expect(existsSync(join(cwd, 'made.txt'))).toBe(allowed)
    if (allowed) expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    const finals = toolStatuses(a).filter((s) => s === 'completed' || s === 'failed')
    expect(finals).toHaveLength(1)
    await until(() => toolStatuses(b).filter((s) => s === 'completed' || s === 'failed').length === 1)
  })

  it('a client attached while a question is open is asked too and can answer it; the asker is sent $/cancel_request', async () => {
    const { remote, cwd } = await server()
    let askerCancelled = false
    const a = await client(remote, cwd, 'window-a', (_params, signal) => {
      // The asking client never answers: it waits until the question is withdrawn from it.
      return new Promise((_resolve, reject) => {
        const withdrawn = () => {
          askerCancelled = true
          reject(new Error('cancelled'))
        }
        // The withdrawal may come before this handler runs (both read in one go).
        if (signal.aborted) withdrawn()
        else signal.addEventListener('abort', withdrawn, { once: true })
      })
    })
    let bAsked = 0
    const b = await client(remote, cwd, 'window-b', async (params) => {
      bAsked++
      return choose('allow_once')(params)
    })
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    // A second client only watching (no answer yet) makes the question a shared one.
    const watcher = await client(remote, cwd, 'watcher', () => new Promise(() => {}))
    await watcher.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const prompt = a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write it' }],
    })
    await until(() => presences(a).some((p) => p.state === 'waiting'))
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    expect((await prompt).stopReason).toBe('end_turn')
    expect(bAsked).toBe(1)
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    await until(() => askerCancelled)
    await until(() => outcomes(a).length === 1 && outcomes(watcher).length === 1)
    expect(outcomes(a)[0]).toMatchObject({
      state: 'answered',
      optionId: 'allow_once',
      answeredBy: 'window-b',
    })
    // Presence: three attached, named, and the session idle again after the turn.
    await until(() => presences(b).at(-1)?.state === 'idle')
    expect(presences(b).at(-1)).toEqual({
      attached: 3,
      clients: ['window-a', 'watcher', 'window-b'],
      state: 'idle',
    })
  })

  it('a client that leaves while asked does not leave the question unanswerable: the asker still answers it', async () => {
    const { remote, cwd } = await server()
    // The asking client answers only once the server has detached the other asked client (its
    // presence says one client is left).
    let a: RemoteClient | undefined
    a = await client(remote, cwd, 'window-a', async (params) => {
      await until(() => (a ? presences(a).at(-1)?.attached === 1 : false))
      return choose('allow_once')(params)
    })
    // Over the remote transport a dropped connection may come back (resume), so the leaver detaches
    // the way an editor closing its window does: session/close.
    let leaver: RemoteClient | undefined
    let opened = ''
    leaver = await client(remote, cwd, 'leaver', () => {
      void leaver?.agent.request('session/close', { sessionId: opened })
      return new Promise(() => {})
    })
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    opened = sessionId
    await leaver.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write it' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    await until(() => outcomes(a).length === 1)
    expect(outcomes(a)[0]).toMatchObject({ state: 'answered', answeredBy: 'window-a' })
  })

  it('an ask_user question goes to every attached client that shows forms; the first answer is the one the tool gets', async () => {
    const turns = [
      [
        [{ toolCall: { name: 'ask_user', input: { question: 'Which one?', options: ['x', 'y'] } } }],
        [{ text: 'ok' }],
      ],
    ]
    const { remote, cwd } = await server(turns)
    const never: Answer = () => new Promise(() => {})
    let askerCancelled = false
    const a = await client(remote, cwd, 'window-a', never, (_params, signal) => {
      return new Promise((_resolve, reject) => {
        const withdrawn = () => {
          askerCancelled = true
          reject(new Error('cancelled'))
        }
        // The withdrawal may come before this handler runs (both read in one go).
        if (signal.aborted) withdrawn()
        else signal.addEventListener('abort', withdrawn, { once: true })
      })
    })
    const b = await client(remote, cwd, 'window-b', never, async () => ({
      action: 'accept',
      content: { answer: 'y' },
    }))
    // A client that shows no forms is not asked.
    const plain = await client(remote, cwd, 'plain', never)
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] })
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    await plain.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'ask me' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    await until(() => askerCancelled)
    const results = a.updates.flatMap((u) =>
      u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed'
        ? JSON.stringify(u.update.content ?? [])
        : [],
    )
    expect(results.join('')).toContain('The user answered: y')
    await until(() => outcomes(plain).length === 1)
    expect(outcomes(plain)[0]).toMatchObject({ state: 'answered', action: 'accept', answeredBy: 'window-b' })
  })
})
