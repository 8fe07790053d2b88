import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { queuedNotice, queueTwoTakeBackSecond } from '../support/queued-prompts.js'
import { testResources } from '../support/test-resources.js'
import { agentText } from './updates.js'

// Several editor windows, one store: each window starts its own agent process (agent-shell starts
// one per shell). Open is free, writing takes the pen, and a process catches up on what the others
// appended before it writes.

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-multi-'))
const SLOW_SCRIPT = join(scriptDir, 'slow.json')
writeFileSync(
  SLOW_SCRIPT,
  JSON.stringify({
    turns: [
      [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]],
      [[{ text: 'second turn answer' }]],
    ],
  }),
)

const resources = testResources()
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

const store = (): string => resources.tempDir('dsh-acp-multi-store-')

async function start(storeDir: string, args: string[] = []): Promise<AgentProcess> {
  const agent = resources.start({ storeDir, args })
  await agent.initialize()
  return agent
}

function prompt(agent: AgentProcess, sessionId: string, words: string) {
  return agent.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
}

/** Two processes on a new store, both running SLOW_SCRIPT: A made a session, B loaded it. */
async function slowPair() {
  const dir = store()
  const a = await start(dir, ['--model', `script:${SLOW_SCRIPT}`])
  const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
  const b = await start(dir, ['--model', `script:${SLOW_SCRIPT}`])
  await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
  return { dir, a, b, sessionId }
}

/** The updates of `sessionId` the agent sent from index `from` on. */
function updatesOf(agent: AgentProcess, sessionId: string, from = 0): acp.SessionNotification[] {
  return agent.updates.slice(from).filter((u) => u.sessionId === sessionId)
}

function seqOf(update: acp.SessionNotification): number | undefined {
  return (update._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq
}

/** The user messages the updates show, in order, with their message ids. */
function userMessages(
  updates: readonly acp.SessionNotification[],
): { text: string; messageId: string | undefined }[] {
  return updates.flatMap((u) =>
    u.update.sessionUpdate === 'user_message_chunk' && u.update.content.type === 'text'
      ? [{ text: u.update.content.text, messageId: u.update.messageId ?? undefined }]
      : [],
  )
}

function storedEvents(dir: string, sessionId: string): { seq: number; type: string }[] {
  const lines = readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')
    .split('\n')
    .slice(1, -1)
  return lines.map((line) => JSON.parse(line))
}

/**
 * Resolves, once the agent has sent the end of turn `endSeq` of this session (an update marked
 * `_meta.dsh.turnEnd`), with the updates of the session it sent from index `from` on.
 */
async function turnSeen(
  agent: AgentProcess,
  sessionId: string,
  endSeq: number,
  from: number,
): Promise<acp.SessionNotification[]> {
  const ended = (u: acp.SessionNotification) =>
    (u._meta as { dsh?: { turnEnd?: { seq?: number } } } | undefined)?.dsh?.turnEnd?.seq === endSeq
  while (!updatesOf(agent, sessionId, from).some(ended)) await new Promise((r) => setImmediate(r))
  return updatesOf(agent, sessionId, from)
}

/** Resolves once the agent has streamed some text for this session after `from`. */
async function firstChunk(agent: AgentProcess, sessionId: string, from: number): Promise<void> {
  while (!agentText(updatesOf(agent, sessionId, from))) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Resolves once a condition over what was received holds (checked after each turn of the event loop). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve))
}

describe('several processes on one store', () => {
  it('agent-shell: A holds a session idle; B forks it, loads and prompts the child, prompts the parent; A is shown B’s turn as it is written', async () => {
    const dir = store()
    const a = await start(dir)
    const { sessionId: parent } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await prompt(a, parent, 'from A')

    const b = await start(dir)
    const forked = await b.agent.request('session/fork', { sessionId: parent, cwd: CWD, mcpServers: [] })
    const child = forked.sessionId
    expect(forked._meta).toEqual({ dsh: { parentSession: parent, seedLength: 6 } })
    await b.agent.request('session/load', { sessionId: child, cwd: CWD, mcpServers: [] })
    expect(userMessages(updatesOf(b, child)).map((m) => m.text)).toEqual(['from A'])
    let from = b.updates.length
    await prompt(b, child, 'in the child')
    expect(agentText(updatesOf(b, child, from))).toContain('I remember 2 messages')

    from = b.updates.length
    const fromA = a.updates.length
    const bTurn = await prompt(b, parent, 'from B')
    expect(agentText(updatesOf(b, parent, from))).toContain('I remember 2 messages')
    expect((bTurn._meta as { dsh: { seq: number } }).dsh.seq).toBe(12)

    // A has the parent open: B's turn reaches it as B writes it, as a replay shows it.
    const live = await turnSeen(a, parent, 12, fromA)
    expect(userMessages(live)).toEqual([{ text: 'from B', messageId: expect.any(String) }])
    expect(agentText(live)).toMatch(/I remember 2 messages/)
    const seqs = live.map(seqOf).filter((s) => s !== undefined)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    expect(Math.min(...seqs)).toBe(8) // B's user/message (its turn/start, 7, shows nothing)

    // A's next prompt has nothing left to catch up on: it runs its own turn.
    from = a.updates.length
    const aTurn = await prompt(a, parent, 'A again')
    const seen = updatesOf(a, parent, from)
    // The prompt's own text is not echoed live (the client has it).
    expect(userMessages(seen)).toEqual([])
    expect(agentText(seen)).toMatch(/I remember 3 messages/)
    expect((aTurn._meta as { dsh: { seq: number } }).dsh.seq).toBe(18)

    expect(storedEvents(dir, parent).map((e) => e.seq)).toEqual([...Array(18).keys()].map((i) => i + 1))
    expect(await a.stop()).toBe(0)
    expect(await b.stop()).toBe(0)
    const c = await start(dir)
    await c.agent.request('session/load', { sessionId: parent, cwd: CWD, mcpServers: [] })
    expect(userMessages(updatesOf(c, parent)).map((m) => m.text)).toEqual(['from A', 'from B', 'A again'])
    expect(await c.stop()).toBe(0)
    expect([...a.audit.problems, ...b.audit.problems, ...c.audit.problems]).toEqual([])
  })

  it("a prompt while a turn runs in another process waits in this process's queue (shown queued), can be taken back, and runs once that turn ends; nothing is written meanwhile", async () => {
    const { dir, a, b, sessionId } = await slowPair()

    const from = b.updates.length
    const running = prompt(a, sessionId, 'slow one')
    await firstChunk(a, sessionId, 0)
    const before = readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')
    let answered = false
    const { waiting } = await queueTwoTakeBackSecond(b, sessionId, ['after yours', 'taken back'])
    const settled = () => {
      answered = true
    }
    void waiting.then(settled, settled)
    // Other changes are still refused while the other process writes: they do not queue.
    await expect(
      b.agent.request('session/set_mode', { sessionId, modeId: 'read-only' }),
    ).rejects.toMatchObject({ code: -32010, data: { code: 'SESSION_LOCKED', sessionId, pid: a.child.pid } })
    expect(readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')).toBe(before)
    expect(answered).toBe(false)

    await a.agent.notify('session/cancel', { sessionId })
    expect((await running).stopReason).toBe('cancelled')
    const answer = await waiting
    expect(answer.stopReason).toBe('end_turn')
    await queuedNotice(b, sessionId, from, 'started')
    const seen = updatesOf(b, sessionId, from)
    // Its own prompt is not echoed to the client that sent it.
    expect(userMessages(seen).map((m) => m.text)).toEqual(['slow one'])
    expect(agentText(seen)).toBe('working on itsecond turn answer')
    const stored = storedEvents(dir, sessionId)
    expect(stored.filter((e) => e.type === 'turn/end')).toHaveLength(2)
    expect(stored.filter((e) => e.type === 'user/message')).toHaveLength(2)
    // A is shown B's turn as it is written.
    await until(() => userMessages(updatesOf(a, sessionId)).some((m) => m.text === 'after yours'))
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it('a prompt waiting for a turn of another process runs when that process dies holding the pen (SIGKILL)', async () => {
    const { dir, a, b, sessionId } = await slowPair()
    const from = b.updates.length
    void prompt(a, sessionId, 'slow one').catch(() => {})
    await firstChunk(a, sessionId, 0)
    const waiting = prompt(b, sessionId, 'after yours')
    await queuedNotice(b, sessionId, from, 'queued')
    await a.kill()
    expect((await waiting).stopReason).toBe('end_turn')
    const stored = storedEvents(dir, sessionId) as { type: string; data?: { reason?: string } }[]
    expect(stored.filter((e) => e.type === 'turn/end').map((e) => e.data?.reason)).toEqual([
      'interrupted',
      'completed',
    ])
    expect(b.audit.problems).toEqual([])
  })

  it('a session/set_mode right after another process appended shows what it appended first', async () => {
    const dir = store()
    const a = await start(dir)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await start(dir)
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const from = b.updates.length
    await prompt(a, sessionId, 'from A')
    await b.agent.request('session/set_mode', { sessionId, modeId: 'read-only' })
    const seen = updatesOf(b, sessionId, from)
    expect(userMessages(seen).map((m) => m.text)).toEqual(['from A'])
    const last = seen.at(-1)
    expect(last?.update.sessionUpdate).toMatch(/current_mode_update|config_option_update/)
    expect(seqOf(last as acp.SessionNotification)).toBe(7)
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })
})

describe('a rewind and the other processes with the session open', () => {
  it('B rewinds a session A has open: A is told plainly (a client without notices: as an agent message), and after a load goes on from the rewound history', async () => {
    const dir = store()
    const a = await start(dir)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await prompt(a, sessionId, 'keep this')
    await prompt(a, sessionId, 'undo this')
    const b = await start(dir, ['--id-prefix', 'ses_b'])
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    let from = a.updates.length
    await prompt(b, sessionId, '/rewind')
    while (!agentText(updatesOf(a, sessionId, from)).includes('changed in another window')) {
      await new Promise((resolve) => setImmediate(resolve))
    }
    from = a.updates.length
    await a.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayed = agentText(updatesOf(a, sessionId, from))
    expect(replayed).toContain('keep this')
    expect(replayed).not.toContain('undo this')
    expect((await prompt(a, sessionId, 'after the load')).stopReason).toBe('end_turn')
    const file = readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')
    expect(file).toContain('after the load')
    expect(file).not.toContain('undo this')
  })
})

describe('catching up shows what another process appended as a replay shows it', () => {
  it('a /compact made in B reaches A, whose client shows compactions, as a compaction_update', async () => {
    const dir = store()
    const a = resources.start({ storeDir: dir })
    await a.initialize({ session: { compaction: {} } } as acp.ClientCapabilities)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await prompt(a, sessionId, 'one')
    const b = await start(dir, ['--id-prefix', 'ses_b'])
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const from = a.updates.length
    await prompt(b, sessionId, '/compact')
    await prompt(a, sessionId, 'two')
    const kinds = updatesOf(a, sessionId, from).map((n) => n.update.sessionUpdate as string)
    expect(kinds).toContain('compaction_update')
    expect(kinds.indexOf('compaction_update')).toBeLessThan(kinds.lastIndexOf('agent_message_chunk'))
    expect(kinds).not.toContain('tool_call')
    expect(a.audit.problems).toEqual([])
  })
})
