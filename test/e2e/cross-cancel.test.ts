import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'

// Two built-binary processes over stdio on one store (the Emacs case: one agent per shell). A's
// client prompts; B's client, attached in the other process, sends `session/cancel`: the turn
// running in A ends `cancelled` for everyone, as if A's own client had cancelled it.

const CWD = PROJECT_DIR
const resources = testResources()
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

function slowScript(): string {
  const dir = resources.tempDir('dsh-acp-xcancel-model-')
  const path = join(dir, 'slow.json')
  const slow = [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]]
  writeFileSync(path, JSON.stringify({ turns: [slow, [[{ text: 'second answer' }]], slow] }))
  return path
}

async function pair() {
  const store = resources.tempDir('dsh-acp-xcancel-store-')
  const args = ['--model', `script:${slowScript()}`]
  const a = resources.start({ storeDir: store, args })
  await a.initialize()
  const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
  const b = resources.start({ storeDir: store, args })
  await b.initialize()
  await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
  return { a, b, store, sessionId, args }
}

async function until(check: () => boolean, agents: readonly AgentProcess[]): Promise<void> {
  while (!check()) {
    const dead = agents.find((agent) => agent.child.exitCode !== null)
    if (dead) throw new Error(`agent exited: ${dead.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

type TurnEnd = { seq: number; stopReason?: string; reason?: string }
const turnEnds = (agent: AgentProcess, from = 0) =>
  agent.updates
    .slice(from)
    .flatMap((u) => (u._meta as { dsh?: { turnEnd?: TurnEnd } } | undefined)?.dsh?.turnEnd ?? [])
const userTexts = (agent: AgentProcess, from = 0) =>
  agent.updates
    .slice(from)
    .flatMap((u) =>
      u.update.sessionUpdate === 'user_message_chunk' && u.update.content.type === 'text'
        ? [u.update.content.text]
        : [],
    )
const storedEnds = (store: string, sessionId: string) =>
  readFileSync(join(store, `${sessionId}.jsonl`), 'utf8')
    .split('\n')
    .slice(1, -1)
    .map((line) => JSON.parse(line) as { type: string; data?: { reason?: string } })
    .filter((e) => e.type === 'turn/end')
    .map((e) => e.data?.reason)
/** What B's note on the store's board says now (undefined while it has none). */
const noteOf = (store: string, sessionId: string, pid: number | undefined) => {
  const name = readdirSync(store).find((n) => n === `${sessionId}.board.${pid}.json`)
  return name ? (JSON.parse(readFileSync(join(store, name), 'utf8')).note as { cancel?: unknown }) : undefined
}

describe('a cancel from a client of another process', () => {
  it("B's session/cancel cancels the turn A runs: A's prompt answers cancelled, B sees the turn end live, and the next turn is not touched", async () => {
    const { a, b, store, sessionId } = await pair()
    const fromB = b.updates.length
    const running = a.agent.request('session/prompt', { sessionId, prompt: [text('slow one')] })
    // B's client sees A's turn (its prompt) live: the turn is open in B's view.
    await until(() => userTexts(b, fromB).includes('slow one'), [a, b])
    await b.agent.notify('session/cancel', { sessionId })
    expect((await running).stopReason).toBe('cancelled')
    await until(() => turnEnds(b, fromB).length === 1, [a, b])
    expect(turnEnds(b, fromB)[0]).toMatchObject({ reason: 'cancelled' })
    expect(storedEnds(store, sessionId)).toEqual(['cancelled'])
    // The request names the turn that ended: B takes it off its note, and A's next turn runs.
    await until(() => noteOf(store, sessionId, b.child.pid)?.cancel === undefined, [a, b])
    const next = await a.agent.request('session/prompt', { sessionId, prompt: [text('again')] })
    expect(next.stopReason).toBe('end_turn')
    expect(storedEnds(store, sessionId)).toEqual(['cancelled', 'completed'])
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("taking back B's queued prompt ($/cancel_request) takes back only that prompt: A's turn runs on until a cancel", async () => {
    const { a, b, store, sessionId } = await pair()
    const fromB = b.updates.length
    const running = a.agent.request('session/prompt', { sessionId, prompt: [text('slow one')] })
    await until(() => userTexts(b, fromB).includes('slow one'), [a, b])
    const controller = new AbortController()
    const queued = b.agent.request(
      'session/prompt',
      { sessionId, prompt: [text('queued in B')] },
      { cancellationSignal: controller.signal },
    )
    const queuedState = () =>
      b.updates
        .slice(fromB)
        .map((u) => (u.update._meta as { dsh?: { queued?: { state: string } } } | undefined)?.dsh?.queued)
        .filter((q) => q !== undefined)
        .map((q) => q.state)
    await until(() => queuedState().includes('queued'), [a, b])
    controller.abort()
    expect((await queued).stopReason).toBe('cancelled')
    expect(noteOf(store, sessionId, b.child.pid)?.cancel).toBeUndefined()
    // A's turn is still open: nothing ended it. Then B's session/cancel does.
    expect(storedEnds(store, sessionId)).toEqual([])
    await b.agent.notify('session/cancel', { sessionId })
    expect((await running).stopReason).toBe('cancelled')
    expect(storedEnds(store, sessionId)).toEqual(['cancelled'])
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("a v2 client of B cancels A's turn: A's prompt answers cancelled, B is shown the turn's end", async () => {
    const { a, store, sessionId, args } = await pair()
    const b = new V2AgentProcess({ args: ['--store', store, ...args] })
    try {
      await b.initialize()
      await b.agent.request('session/resume', { sessionId, cwd: CWD })
      const from = b.audit.updates().length
      const running = a.agent.request('session/prompt', { sessionId, prompt: [text('slow one')] })
      await b.until((u) => u.sessionUpdate === 'user_message' && JSON.stringify(u).includes('slow one'), from)
      await b.agent.notify('session/cancel', { sessionId })
      expect((await running).stopReason).toBe('cancelled')
      // Its turn's end is shown as a replay marks it (`_meta.dsh.turnEnd` of the notification).
      const turnEnd = () =>
        b.audit.lines.flatMap((l) =>
          l.dir === 'out' && l.message.method === 'session/update'
            ? (l.message.params._meta?.dsh?.turnEnd ?? [])
            : [],
        )
      await b.until(() => turnEnd().length > 0, from)
      expect(turnEnd()).toEqual([expect.objectContaining({ reason: 'cancelled' })])
      expect(storedEnds(store, sessionId)).toEqual(['cancelled'])
      expect(b.audit.problems).toEqual([])
    } finally {
      await b.stop()
    }
  })
})
