import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

/**
 * Two clients on one session in one `dsh-acp serve` process: A's turn streams the model's text
 * while B sets the title or the goal. B sees its own change and A's turn in log order: the text's
 * chunks keep the seq they announced, and nothing of the turn appended after the change reaches B
 * before the change.
 */
let cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

// The model's step streams 'one two', then (the window B's change comes in: an attached client
// is sent a chunk once the next one streams) ' three'. A goal set meanwhile is answered once that
// step's message is appended, and the agent may take turns of its own toward it before B's pause
// arrives: those find an answer too.
const TURNS = [
  [[{ text: 'one' }, { text: ' two' }, { delayMs: 1000 }, { text: ' three' }]],
  ...Array.from({ length: 8 }, () => [[{ text: 'again' }]]),
]

const seqOf = (u: acp.SessionNotification) => (u._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq
const textOf = (u: acp.SessionNotification) =>
  u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text'
    ? u.update.content.text
    : ''

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve))
}

async function pair(): Promise<{ a: RemoteClient; b: RemoteClient; sessionId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-title-goal-'))
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns: TURNS }))
  const remote = await RemoteServer.start([
    '--store',
    join(dir, 'store'),
    '--model',
    `script:${join(dir, 'model.json')}`,
  ])
  cleanup.push(() => remote.stop())
  const a = remote.client('ws')
  const b = remote.client('ws')
  cleanup.push(
    () => a.close(),
    () => b.close(),
  )
  await a.initialize()
  await b.initialize()
  const { sessionId } = await a.agent.request('session/new', { cwd: a.cwd, mcpServers: [] })
  await b.agent.request('session/load', { sessionId, cwd: b.cwd, mcpServers: [] })
  return { a, b, sessionId }
}

/**
 * Runs A's prompt; once B has A's first chunk, B makes `change`. Returns B's updates of the turn,
 * and what a replay (a third client's load) shows of the same events.
 */
async function changeWhileStreaming(change: (b: RemoteClient, sessionId: string) => Promise<unknown>) {
  const { a, b, sessionId } = await pair()
  const from = b.updates.length
  const prompt = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })
  await until(() => b.updates.slice(from).some((u) => textOf(u) === 'one'))
  await change(b, sessionId)
  await prompt
  const ended = (u: acp.SessionNotification) =>
    (u._meta as { dsh?: { turnEnd?: unknown } } | undefined)?.dsh?.turnEnd !== undefined
  await until(() => b.updates.slice(from).some(ended))
  // What B was shown of A's turn, through its end (the goal's own turns may follow).
  const shown = b.updates.slice(from).filter((u) => u.sessionId === sessionId)
  return { seen: shown.slice(0, shown.findIndex(ended) + 1), a, sessionId }
}

/** Checks B's view: seqs never go back, the streamed text came once, with the seq the log gave it. */
async function expectLogOrder(
  seen: readonly acp.SessionNotification[],
  a: RemoteClient,
  sessionId: string,
  isChange: (u: acp.SessionNotification) => boolean,
) {
  const seqs = seen.flatMap((u) => seqOf(u) ?? [])
  expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
  expect(seen.map(textOf).join('')).toBe('one two three')
  expect(seen.some(isChange)).toBe(true)
  // A replay of the log: the message has the seq its chunks carried, and the change its own.
  const replayFrom = a.updates.length
  await a.agent.request('session/load', { sessionId, cwd: a.cwd, mcpServers: [] })
  const replay = a.updates.slice(replayFrom)
  const message = replay.find((u) => textOf(u) === 'one two three')
  expect(message).toBeDefined()
  const chunkSeqs = seen.filter((u) => textOf(u) !== '').map(seqOf)
  expect(chunkSeqs).toEqual(chunkSeqs.map(() => (message ? seqOf(message) : -1)))
  const changes = seen.filter(isChange).map(seqOf)
  expect(changes).toEqual(replay.filter(isChange).map(seqOf).slice(0, changes.length))
}

describe('a title or goal set while another client’s turn streams', () => {
  it('session/set_title: B sees its title and the turn in log order', async () => {
    const isTitle = (u: acp.SessionNotification) =>
      u.update.sessionUpdate === 'session_info_update' && u.update.title === 'Renamed'
    const { seen, a, sessionId } = await changeWhileStreaming((b, sessionId) =>
      b.agent.request('session/set_title', { sessionId, title: 'Renamed' }),
    )
    await expectLogOrder(seen, a, sessionId, isTitle)
  })

  it('_session/goal: B sees its goal and the turn in log order', async () => {
    const isGoal = (u: acp.SessionNotification) =>
      u.update.sessionUpdate === 'session_info_update' &&
      (u.update._meta as { goal?: { objective?: string } } | undefined)?.goal?.objective === 'ship it'
    const { seen, a, sessionId } = await changeWhileStreaming(async (b, sessionId) => {
      await b.agent.request('_session/goal', { sessionId, action: 'set', objective: 'ship it' })
      // Paused at once: the agent takes no turn of its own toward it after A's.
      await b.agent.request('_session/goal', { sessionId, action: 'pause' })
    })
    await expectLogOrder(seen, a, sessionId, isGoal)
  })
})
