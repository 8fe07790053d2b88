import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { dshOf, endsTurn, saysUser, until } from '../support/live-updates.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { expectStreamedLive, STREAMING_MODEL } from '../support/streamed-live.js'
import { testResources } from '../support/test-resources.js'
import { agentText } from './updates.js'

// Two stdio agent processes on one store (two editor windows, two agent-shell shells): a client
// that has a session open sees what the other process writes to it as it is written, not at its
// next prompt.

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-live-cross-'))
const SCRIPT = join(scriptDir, 'script.json')
writeFileSync(
  SCRIPT,
  JSON.stringify({
    turns: [
      [[{ text: 'first answer' }]],
      [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]],
      [[{ text: 'third answer' }]],
    ],
  }),
)

const STREAMING = join(scriptDir, 'streaming.json')
writeFileSync(STREAMING, JSON.stringify(STREAMING_MODEL))

const resources = testResources()
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

const store = (): string => resources.tempDir('dsh-acp-live-cross-store-')

async function start(
  storeDir: string,
  args: string[] = [],
  capabilities: acp.ClientCapabilities = {},
): Promise<AgentProcess> {
  const agent = resources.start({ storeDir, args })
  await agent.initialize(capabilities)
  return agent
}

function prompt(agent: AgentProcess, sessionId: string, words: string) {
  return agent.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
}

/**
 * What a client holds of the log, whichever way it came: each update without the turn end mark
 * (live from another process, an update of a turn still open goes out before its end is known,
 * and the end then comes as a `session_info_update` of its own, which is left out here too).
 */
function normalized(updates: readonly acp.SessionNotification[]): unknown[] {
  return updates
    .filter((u) => dshOf(u)?.seq !== undefined)
    .filter((u) => !(u.update.sessionUpdate === 'session_info_update' && dshOf(u)?.turnEnd))
    .map((u) => ({ ...u, _meta: { dsh: { seq: dshOf(u)?.seq } } }))
}

describe('live across processes', () => {
  it("B, which loaded the session, sees A's turns as A writes them: before A's answer, once, in order, as a replay shows them", async () => {
    const dir = store()
    const a = await start(dir, ['--model', `script:${SCRIPT}`])
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await start(dir, ['--model', `script:${SCRIPT}`])
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const loaded = b.updates.length

    const first = await prompt(a, sessionId, 'one')
    const firstEnd = (first._meta as { dsh: { seq: number } }).dsh.seq
    await until(b, endsTurn(firstEnd), loaded)

    // A slow turn: B sees A's prompt while A's turn still runs (A has not answered).
    let answered = false
    const running = prompt(a, sessionId, 'two').finally(() => {
      answered = true
    })
    await until(b, saysUser('two'), loaded)
    expect(answered).toBe(false)
    await a.agent.notify('session/cancel', { sessionId })
    const second = await running
    expect(second.stopReason).toBe('cancelled')
    const secondEnd = (second._meta as { dsh: { seq: number } }).dsh.seq
    const end = await until(b, endsTurn(secondEnd), loaded)
    expect(end._meta).toMatchObject({ dsh: { turnEnd: { seq: secondEnd, reason: 'cancelled' } } })

    const live = b.updates.slice(loaded).filter((u) => u.sessionId === sessionId)
    const seqs = live.map((u) => dshOf(u)?.seq).filter((s) => s !== undefined)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    expect(agentText(live)).toBe('first answerworking on it')

    // A third process replays the log: B was shown the same updates.
    const c = await start(dir)
    await c.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayed = c.updates.filter((u) => u.sessionId === sessionId)
    expect(normalized(live)).toEqual(normalized(replayed))

    // B's next prompt has nothing left to catch up on: only its own turn follows.
    const from = b.updates.length
    expect((await prompt(b, sessionId, 'three')).stopReason).toBe('end_turn')
    const own = b.updates.slice(from)
    expect(own.some(saysUser('two'))).toBe(false)
    expect(agentText(own)).not.toContain('working on it')
    // And A sees B's turn live in turn.
    await until(a, saysUser('three'))
    expect([...a.audit.problems, ...b.audit.problems, ...c.audit.problems]).toEqual([])
  })

  it("B's client sees A's model text stream in as A's model writes it, before its message is appended, and once", async () => {
    const dir = store()
    const a = await start(dir, ['--model', `script:${STREAMING}`])
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const b = await start(dir)
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    await expectStreamedLive(a, b, sessionId)
  })

  it('a rewind in B reaches A plainly (a notice with _meta.dsh.resync), and A goes on from the rewound history', async () => {
    const dir = store()
    const a = await start(dir, [], { session: { notices: {} } } as acp.ClientCapabilities)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const kept = await prompt(a, sessionId, 'keep this')
    const keptSeq = (kept._meta as { dsh: { seq: number } }).dsh.seq
    await prompt(a, sessionId, 'undo this')
    const b = await start(dir, ['--id-prefix', 'ses_b'])
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const from = a.updates.length
    await prompt(b, sessionId, '/rewind')
    const notice = await until(a, (u) => u.update.sessionUpdate === 'notice', from)
    expect(notice.update).toMatchObject({
      sessionUpdate: 'notice',
      severity: 'warning',
      _meta: { dsh: { resync: { keptSeq } } },
    })
    expect((await prompt(a, sessionId, 'after the rewind')).stopReason).toBe('end_turn')
    const c = await start(dir)
    await c.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const history = agentText(c.updates)
    expect(history).toContain('keep this')
    expect(history).not.toContain('undo this')
    expect(history).toContain('after the rewind')
    expect([...a.audit.problems, ...b.audit.problems, ...c.audit.problems]).toEqual([])
  })
})
