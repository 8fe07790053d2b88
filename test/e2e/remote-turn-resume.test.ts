import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type RemoteClient, RemoteServer, type TransportKind } from '../support/remote-server.js'

/**
 * Resumable turns with the SDK's own transport clients: a client whose network goes away in the
 * middle of a turn connects again (a new connection, as the SDK's clients reconnect), loads the
 * session after the last event it saw in full, and learns where the turn stands
 * (`_meta["acp/turnState"]`), gets every event it missed once and in log order, answers the
 * permission request the turn still waits on, and sees the turn end with its stop reason.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const WORDS = 8
const words = (step: number) => Array.from({ length: WORDS }, (_, i) => `s${step}w${i} `)
const EDIT = { path: 'app.ts', edits: [{ oldText: 'const answer = 41', newText: 'const answer = 42' }] }

/** A server whose one turn streams words, asks to edit app.ts, then streams more words. */
async function server(): Promise<{ remote: RemoteServer; project: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-turn-resume-'))
  const project = join(dir, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'app.ts'), 'const answer = 41\n')
  const stream = (step: number) => words(step).flatMap((text) => [{ text }, { delayMs: 2 }])
  const turns = [[[...stream(0), { toolCall: { name: 'edit_text_file', input: EDIT } }], stream(1)]]
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
  cleanup.push(
    () => remote.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  )
  return { remote, project }
}

const seqOf = (update: acp.SessionNotification) =>
  (update._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq ?? 0
const isChunk = (update: acp.SessionNotification) => update.update.sessionUpdate === 'agent_message_chunk'
const textOf = (update: acp.SessionNotification) =>
  isChunk(update) ? ((update.update as { content?: { text?: string } }).content?.text ?? '') : ''
const turnEndOf = (update: acp.SessionNotification) =>
  (update._meta as { dsh?: { turnEnd?: { stopReason?: string } } } | undefined)?.dsh?.turnEnd

/** Resolves once `done` holds, checked at each update or request the client gets. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * The last event the client saw in full: its chunks stream before their event is appended, so
 * an event whose chunks were the last thing seen may have been cut; it is asked for again.
 */
function lastSeenInFull(updates: readonly acp.SessionNotification[]): number {
  const last = updates.at(-1)
  if (!last) return 0
  return isChunk(last) ? seqOf(last) - 1 : seqOf(last)
}

/** The session as events: per seq, its updates (chunks joined into one text), in order. */
function byEvent(updates: readonly acp.SessionNotification[]) {
  const events: { seq: number; text: string; kinds: string[] }[] = []
  for (const update of updates) {
    const seq = seqOf(update)
    if (seq === 0) continue
    let event = events.at(-1)
    if (event?.seq !== seq) {
      event = { seq, text: '', kinds: [] }
      events.push(event)
    }
    event.text += textOf(update)
    if (!isChunk(update)) event.kinds.push(update.update.sessionUpdate)
  }
  return events
}

interface Asked {
  readonly params: acp.RequestPermissionRequest
  answer(response: acp.RequestPermissionResponse): void
}

/** A client whose permission requests wait in `asked` until the test answers them. */
function asking(remote: RemoteServer, kind: TransportKind, asked: Asked[]): RemoteClient {
  const client = remote.client(kind, {
    setupClient: (app) =>
      app.onRequest(
        'session/request_permission',
        ({ params }) => new Promise((answer) => asked.push({ params, answer })),
      ),
  })
  cleanup.push(() => client.close())
  return client
}

describe.each(['http', 'ws'] as const)('resumable turns over %s with the SDK client', (kind) => {
  it('the network goes away mid-stream: the new connection gets the rest once and in order, answers the permission, sees the turn end', async () => {
    const { remote, project } = await server()
    const asked: Asked[] = []
    const a = asking(remote, kind, asked)
    await a.initialize()
    const { sessionId } = await a.agent.request('session/new', { cwd: project, mcpServers: [] })
    const turn = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fix' }] })
    turn.catch(() => undefined)
    await until(() => a.updates.filter(isChunk).length >= 3)
    a.drop()
    const seen = lastSeenInFull(a.updates)

    const b = asking(remote, kind, asked)
    await b.initialize()
    const loaded = await b.agent.request('session/load', {
      sessionId,
      cwd: project,
      mcpServers: [],
      _meta: { dsh: { afterSeq: seen } },
    })
    const state = (loaded._meta as Record<string, { state?: string }> | undefined)?.['acp/turnState']
    expect(['running', 'waiting']).toContain(state?.state)
    await until(() => asked.length > 0)
    expect(asked[0]?.params.sessionId).toBe(sessionId)
    asked[0]?.answer({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
    await until(() => b.updates.some((u) => turnEndOf(u) !== undefined))
    expect(b.updates.map(turnEndOf).filter(Boolean)).toEqual([
      expect.objectContaining({ stopReason: 'end_turn' }),
    ])
    expect(readFileSync(join(project, 'app.ts'), 'utf8')).toBe('const answer = 42\n')

    // B got every event after the last A saw in full once, in log order, as a replay of the log has it.
    const c = asking(remote, kind, [])
    await c.initialize()
    await c.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] })
    const missed = byEvent(c.updates).filter((e) => e.seq > seen)
    expect(byEvent(b.updates)).toEqual(missed)
    const text = [...byEvent(a.updates).filter((e) => e.seq <= seen), ...missed].map((e) => e.text).join('')
    expect(text).toBe([...words(0), ...words(1)].join(''))
  })

  it('the network goes away while the turn waits on a permission: the new connection is told waiting and answers it', async () => {
    const { remote, project } = await server()
    const asked: Asked[] = []
    const a = asking(remote, kind, asked)
    await a.initialize()
    const { sessionId } = await a.agent.request('session/new', { cwd: project, mcpServers: [] })
    const turn = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fix' }] })
    turn.catch(() => undefined)
    await until(() => asked.length > 0)
    a.drop()
    const promptId = a.requests.find((r) => r.method === 'session/prompt')?.id
    expect(promptId).toBeDefined()

    const b = asking(remote, kind, asked)
    await b.initialize()
    const resumed = await b.agent.request('session/resume', { sessionId, cwd: project, mcpServers: [] })
    const state = (resumed._meta as Record<string, { state?: string; turnSeq?: number }> | undefined)?.[
      'acp/turnState'
    ]
    expect(state).toEqual({ state: 'waiting', turnSeq: expect.any(Number), promptRequestId: promptId })
    await until(() => asked.length > 1)
    expect(asked[1]?.params.toolCall.toolCallId).toBe(asked[0]?.params.toolCall.toolCallId)
    asked[1]?.answer({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
    await until(() => b.updates.some((u) => turnEndOf(u) !== undefined))
    expect(readFileSync(join(project, 'app.ts'), 'utf8')).toBe('const answer = 42\n')
    expect(b.updates.filter(isChunk).map(textOf).join('')).toBe(words(1).join(''))

    // Once it ended, a client that resumes is told how.
    const c = asking(remote, kind, [])
    await c.initialize()
    const after = await c.agent.request('session/resume', { sessionId, cwd: project, mcpServers: [] })
    expect((after._meta as Record<string, unknown>)['acp/turnState']).toEqual({
      state: 'idle',
      stopReason: 'end_turn',
      turnEndSeq: expect.any(Number),
    })
  })
})
