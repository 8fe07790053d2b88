import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

/**
 * Several clients on one live session in one `dsh-acp serve` process: a client that loads or
 * resumes a session another connection has open is attached, and sees every update of the
 * session, whoever caused it, once and in order, as the replay of the log shows it.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const WORDS = 12
const words = (turn: number) => Array.from({ length: WORDS }, (_, i) => `t${turn}w${i} `)

/** A server whose script model streams WORDS words per turn (`delayMs` apart: a turn to cancel). */
async function server(delayMs = 0): Promise<RemoteServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-attach-'))
  const turns = Array.from({ length: 6 }, (_, turn) => [
    words(turn).flatMap((text) => (delayMs > 0 ? [{ text }, { delayMs }] : [{ text }])),
  ])
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  const remote = await RemoteServer.start(['--memory', '--model', `script:${join(dir, 'model.json')}`])
  cleanup.push(
    () => remote.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  )
  return remote
}

async function client(remote: RemoteServer): Promise<RemoteClient> {
  const made = remote.client('ws')
  cleanup.push(() => made.close())
  await made.initialize()
  return made
}

/** Resolves once `updates` holds one that `done` accepts (checked at every update received). */
async function until(
  updates: acp.SessionNotification[],
  done: (update: acp.SessionNotification) => boolean,
  from = 0,
) {
  while (!updates.slice(from).some(done)) await new Promise((resolve) => setImmediate(resolve))
}

const turnEnded = (update: acp.SessionNotification) => {
  const dsh = (update._meta as { dsh?: { turnEnd?: unknown } } | undefined)?.dsh
  return dsh?.turnEnd !== undefined
}

const seqOf = (update: acp.SessionNotification) =>
  (update._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq ?? 0

describe('live attach within one process', () => {
  it("a client that loaded the session sees another client's turn live, each update once and as the replay shows it", async () => {
    const remote = await server()
    const a = await client(remote)
    const b = await client(remote)
    const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first' }] })
    await b.agent.request('session/load', { sessionId, cwd: b.cwd, mcpServers: [] })
    const loadedUpTo = b.updates.length
    const answer = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'second' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    await until(b.updates, turnEnded, loadedUpTo)
    // The updates of the log (presence, which says who is attached, comes from no event).
    const live = b.updates.slice(loadedUpTo).filter((u) => seqOf(u) > 0)
    const text = live
      .map((u) =>
        u.update.sessionUpdate === 'agent_message_chunk'
          ? (u.update as { content?: { text?: string } }).content?.text
          : '',
      )
      .join('')
    expect(text).toBe(words(1).join(''))
    expect(live.some((u) => u.update.sessionUpdate === 'user_message_chunk')).toBe(true)
    // The prompting client is sent its own turn once, as before.
    const chunksOfA = a.updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk')
    expect(chunksOfA).toHaveLength(2 * WORDS)

    // A third client's replay of the log shows the same updates for the same turn.
    const c = await client(remote)
    await c.agent.request('session/load', { sessionId, cwd: c.cwd, mcpServers: [] })
    const firstLive = seqOf(live[0] as acp.SessionNotification)
    const replayed = c.updates.filter((u) => seqOf(u) >= firstLive)
    // The model's text came as it streamed (one chunk per word): the rest is the replay's.
    const isChunk = (u: acp.SessionNotification) => u.update.sessionUpdate === 'agent_message_chunk'
    expect(live.filter(isChunk)).toHaveLength(WORDS)
    const textOf = (updates: acp.SessionNotification[]) =>
      updates
        .map((u) => (isChunk(u) ? (u.update as { content?: { text?: string } }).content?.text : ''))
        .join('')
    expect(textOf(live)).toBe(textOf(replayed))
    const notChunk = (u: acp.SessionNotification) => !isChunk(u)
    expect(live.filter(notChunk)).toEqual(replayed.filter(notChunk))
    expect(live.at(-1)?._meta).toEqual(replayed.at(-1)?._meta)
    // Once: the seqs never go back.
    const seqs = live.map(seqOf)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
  })

  it('with _meta.dsh.afterSeq a load replays only what the client has not seen', async () => {
    const remote = await server()
    const a = await client(remote)
    const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })
    const first = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'one' }],
    })
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })
    const seen = (first._meta as { dsh: { seq: number } }).dsh.seq
    const b = await client(remote)
    await b.agent.request('session/load', {
      sessionId,
      cwd: b.cwd,
      mcpServers: [],
      _meta: { dsh: { afterSeq: seen } },
    })
    const c = await client(remote)
    await c.agent.request('session/load', { sessionId, cwd: c.cwd, mcpServers: [] })
    const ofEvents = b.updates.filter((u) => seqOf(u) > 0)
    expect(ofEvents.length).toBeGreaterThan(0)
    expect(b.updates.some((u) => seqOf(u) > 0 && seqOf(u) <= seen)).toBe(false)
    expect(ofEvents).toEqual(c.updates.filter((u) => seqOf(u) > seen))
  })

  it('a resumed client sees the turn, and closing detaches only it', async () => {
    const remote = await server()
    const a = await client(remote)
    const b = await client(remote)
    const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })
    await b.agent.request('session/resume', { sessionId, cwd: b.cwd, mcpServers: [] })
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    await until(b.updates, turnEnded)
    await b.agent.request('session/close', { sessionId })
    // Still open for A: its next turn runs, and B, detached, is sent nothing of it.
    const before = b.updates.length
    const next = await a.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    })
    expect(next.stopReason).toBe('end_turn')
    // Anything sent to B for that turn was written before B's answer to a request made after it.
    await b.agent.request('session/list', {})
    expect(b.updates.length).toBe(before)
  })

  it("a cancel from the attached client cancels the other client's turn", async () => {
    const remote = await server(1000)
    const a = await client(remote)
    const b = await client(remote)
    const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })
    await b.agent.request('session/resume', { sessionId, cwd: b.cwd, mcpServers: [] })
    const turn = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'long' }] })
    await until(b.updates, (u) => u.update.sessionUpdate === 'agent_message_chunk')
    await b.agent.notify('session/cancel', { sessionId })
    const ended = await turn
    expect(ended.stopReason).toBe('cancelled')
    await until(b.updates, turnEnded)
  })
})
