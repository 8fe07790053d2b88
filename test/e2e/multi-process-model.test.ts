import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type SessionEvent, type SessionHeader, UpdateProjector } from '../../src/session/index.js'
import { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'

// A model-based test of several agent processes on one store: random opens, prompts (some at once
// from two processes), forks (some of a session another process is writing), rewinds (`mode:
// conversation`, some while another process has the session open), loads, closes and SIGKILLs
// (some in the middle of a prompt or a rewind), then: every acknowledged turn is in exactly one
// live file (or, rewound away, in its rewind branch), in order; every file of the store is one
// event per line and loads; and every client saw every event of the sessions it had open (live,
// replayed or caught up) exactly once, as a replay projects it (sessions rewound are left out of
// that last check: their other views are stale by design, -32015). `DSH_MULTI_OPS` (default 24)
// sets the operations per run, `DSH_MULTI_SEED` the first seed, `DSH_MULTI_PROCS` (default 2, then
// 3) the processes of an extra run and `DSH_MULTI_RUNS` (default 0) how many extra runs (seeds
// in a row); `npm run stress` runs longer ones and prints files checked, kills and rewinds.

const CWD = PROJECT_DIR
const OPS = Number(process.env.DSH_MULTI_OPS ?? 24)
const SEED = Number(process.env.DSH_MULTI_SEED ?? 27)
const PROCS = Number(process.env.DSH_MULTI_PROCS ?? 4)
const RUNS = Number(process.env.DSH_MULTI_RUNS ?? 0)
const TIMEOUT_MS = 60_000 + OPS * 2_000

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** What one client has open: from which update of its stream, which seq on, its own prompts. */
interface OpenView {
  readonly since: number
  readonly from: number
  readonly own: Set<string>
  lastAck?: number
}

interface Proc {
  agent: AgentProcess
  open: Map<string, OpenView>
}

interface Ack {
  readonly sessionId: string
  readonly seq: number
  readonly text: string
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startProc(dir: string): Promise<Proc> {
  const agent = new AgentProcess({ storeDir: dir })
  cleanups.push(async () => {
    if (agent.child.exitCode === null && agent.child.signalCode === null) await agent.kill()
  })
  await agent.initialize()
  return { agent, open: new Map() }
}

function code(error: unknown): { code?: number; data?: { code?: string } } {
  return error as { code?: number; data?: { code?: string } }
}

interface ModelRun {
  readonly acks: number
  readonly kills: number
  readonly rewinds: number
  readonly files: number
}

/** The seq a `msg_<seq>` message id names. */
function seqOfId(messageId: string): number {
  return Number(messageId.slice('msg_'.length))
}

async function runModel(processes: number, seed: number): Promise<ModelRun> {
  const rand = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-multi-model-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const procs: Proc[] = []
  for (let i = 0; i < processes; i++) procs.push(await startProc(dir))
  const sessions: string[] = []
  const acks: Ack[] = []
  const problems: string[] = []
  let texts = 0
  let kills = 0
  let rewinds = 0
  /** Sessions cut by a rewind (or maybe, by a killed one): other views of them are stale by design. */
  const cut = new Set<string>()

  const trace: string[] = []
  const promptIn = async (
    proc: Proc,
    sessionId: string,
    view: OpenView,
    more = '',
  ): Promise<'ok' | 'busy' | 'changed'> => {
    const text = `prompt ${++texts}${more}`
    view.own.add(text)
    try {
      const answer = await proc.agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text }],
      })
      const seq = (answer._meta as { dsh: { seq: number } }).dsh.seq
      acks.push({ sessionId, seq, text })
      view.lastAck = seq
      return 'ok'
    } catch (error) {
      if (code(error).code === -32010) return 'busy'
      if (code(error).code === -32015 && cut.has(sessionId)) {
        // Rewound in another process: this view is stale; the client loads it again.
        await reload(proc, sessionId)
        return 'changed'
      }
      throw error
    }
  }
  const reload = async (proc: Proc, sessionId: string) => {
    const since = proc.agent.updates.length
    await proc.agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    proc.open.set(sessionId, { since, from: 1, own: new Set() })
  }
  const forkIn = async (proc: Proc, source: string): Promise<string> => {
    try {
      const forked = await proc.agent.agent.request('session/fork', {
        sessionId: source,
        cwd: CWD,
        mcpServers: [],
      })
      const seedLength = (forked._meta as { dsh: { seedLength: number } }).dsh.seedLength
      sessions.push(forked.sessionId)
      proc.open.set(forked.sessionId, {
        since: proc.agent.updates.length,
        from: seedLength + 1,
        own: new Set(),
      })
      return `-> ${forked.sessionId}`
    } catch (error) {
      // A source whose writer died mid-turn (or is writing) ends inside that turn; one rewound
      // elsewhere since this process read it is stale (-32015).
      if (code(error).data?.code === 'OPEN_TURN') return 'open turn'
      if (code(error).code === -32015 && cut.has(source)) return 'changed'
      throw error
    }
  }
  /** Rewinds `sessionId` in `proc` to before its last prompt: resolves the branch, or a reason it did not. */
  const rewindIn = async (proc: Proc, sessionId: string): Promise<string> => {
    let points: { messageId: string }[]
    try {
      ;({ points } = await proc.agent.agent.request<{ points: { messageId: string }[] }>(
        '_session/rewind_points',
        { sessionId },
      ))
    } catch (error) {
      if (code(error).code !== -32015) throw error
      await reload(proc, sessionId)
      return 'changed'
    }
    const point = points[points.length - 1]
    if (!point) return 'no prompt'
    cut.add(sessionId)
    try {
      const answer = await proc.agent.agent.request<{
        conversation?: { rewound: boolean; branchSessionId?: string }
      }>('_session/rewind', { sessionId, messageId: point.messageId, mode: 'conversation' })
      const branch = answer.conversation?.branchSessionId
      if (!answer.conversation?.rewound || branch === undefined) return 'not rewound'
      rewinds++
      const from = seqOfId(point.messageId)
      for (const ack of acks) {
        if (ack.sessionId === sessionId && ack.seq > from) Object.assign(ack, { sessionId: branch })
      }
      sessions.push(branch)
      return `-> ${branch}`
    } catch (error) {
      // Busy elsewhere, a turn open (its writer died), or its file changed: nothing was cut here.
      const known = [-32010, -32015]
      if (known.includes(code(error).code ?? 0) || code(error).data?.code === 'OPEN_TURN') {
        if (code(error).code === -32015) await reload(proc, sessionId)
        return `refused ${code(error).code}`
      }
      throw error
    }
  }

  for (let op = 0; op < OPS; op++) {
    const proc = pick(procs)
    const openIds = [...proc.open.keys()]
    const roll = rand()
    if (sessions.length === 0 || roll < 0.1) {
      const { sessionId } = await proc.agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })
      sessions.push(sessionId)
      proc.open.set(sessionId, { since: proc.agent.updates.length, from: 1, own: new Set() })
      trace.push(`new ${sessionId}`)
    } else if (roll < 0.25 || openIds.length === 0) {
      const sessionId = pick(sessions)
      const since = proc.agent.updates.length
      await proc.agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
      proc.open.set(sessionId, { since, from: 1, own: new Set() })
      trace.push(`load ${sessionId}`)
    } else if (roll < 0.47) {
      const sessionId = pick(openIds)
      trace.push(
        `prompt ${sessionId}: ${await promptIn(proc, sessionId, proc.open.get(sessionId) as OpenView)}`,
      )
    } else if (roll < 0.55) {
      // A rewind (a cut), sometimes while another process writes the same session.
      const sessionId = pick(openIds)
      const other = pick(procs.filter((p) => p !== proc))
      const how = rand()
      if (how < 0.4 && other.open.has(sessionId)) {
        const [rewound, prompted] = await Promise.all([
          rewindIn(proc, sessionId),
          promptIn(other, sessionId, other.open.get(sessionId) as OpenView),
        ])
        trace.push(`rewind ${sessionId} ${rewound} while prompting elsewhere: ${prompted}`)
      } else if (how < 0.8) {
        // Another process holds a view of it; this one rewinds and writes the turn again, a little
        // longer (the file now ends just past that view); then the other one writes.
        if (!other.open.has(sessionId)) await reload(other, sessionId)
        const rewound = await rewindIn(proc, sessionId)
        const again = await promptIn(proc, sessionId, proc.open.get(sessionId) as OpenView, ' again')
        const then = await promptIn(other, sessionId, other.open.get(sessionId) as OpenView)
        trace.push(`rewind ${sessionId} ${rewound}, prompt ${again}, elsewhere ${then}`)
      } else trace.push(`rewind ${sessionId} ${await rewindIn(proc, sessionId)}`)
    } else if (roll < 0.62 && sessions.length > 0) {
      // A fork of a session another process is writing (its prompt in flight).
      const sessionId = pick(openIds)
      const other = pick(procs.filter((p) => p !== proc))
      if (!other.open.has(sessionId)) await reload(other, sessionId)
      const [prompted, forked] = await Promise.all([
        promptIn(proc, sessionId, proc.open.get(sessionId) as OpenView),
        forkIn(other, sessionId),
      ])
      trace.push(`fork ${sessionId} while written: ${prompted} ${forked}`)
    } else if (roll < 0.7) {
      // Two processes prompt one session at once: the pen lets one write, the other is told it is busy.
      const sessionId = pick(openIds)
      const other = pick(procs.filter((p) => p !== proc))
      if (!other.open.has(sessionId)) {
        const since = other.agent.updates.length
        await other.agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
        other.open.set(sessionId, { since, from: 1, own: new Set() })
      }
      const outcomes = await Promise.all([
        promptIn(proc, sessionId, proc.open.get(sessionId) as OpenView),
        promptIn(other, sessionId, other.open.get(sessionId) as OpenView),
      ])
      if (!outcomes.includes('ok') && !outcomes.includes('changed'))
        problems.push(`op ${op}: two prompts at once, neither wrote`)
      trace.push(`race ${sessionId}: ${outcomes.join(' ')}`)
    } else if (roll < 0.8) {
      const source = pick(sessions)
      trace.push(`fork ${source} ${await forkIn(proc, source)}`)
    } else if (roll < 0.88 && openIds.length > 0) {
      const sessionId = pick(openIds)
      await proc.agent.agent.request('session/close', { sessionId })
      proc.open.delete(sessionId)
      trace.push(`close ${sessionId}`)
    } else {
      // SIGKILL, sometimes with a prompt in flight; a new process takes its place.
      const during = rand()
      if (openIds.length > 0 && during < 0.4) {
        const sessionId = pick(openIds)
        void proc.agent.agent
          .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `killed ${++texts}` }] })
          .catch(() => {})
        trace.push(`kill during a prompt of ${sessionId}`)
      } else if (openIds.length > 0 && during < 0.7) {
        // Killed while cutting: the rewind may be whole, not begun, or have its branch only.
        const sessionId = pick(openIds)
        cut.add(sessionId)
        void rewindIn(proc, sessionId).catch(() => {})
        await new Promise((resolve) => setTimeout(resolve, Math.floor(rand() * 40)))
        trace.push(`kill during a rewind of ${sessionId}`)
      } else trace.push('kill')
      // The prompt's line may meet the pipe closed: EPIPE then is expected, not an error.
      proc.agent.child.stdin.on('error', () => {})
      await proc.agent.kill()
      kills++
      procs[procs.indexOf(proc)] = await startProc(dir)
    }
  }

  // Every client saw every event of its open sessions exactly once, as a replay shows it.
  for (const proc of procs) {
    for (const [sessionId, view] of proc.open) {
      if (view.lastAck === undefined || cut.has(sessionId)) continue
      const { header, events } = readStore(dir, sessionId)
      const projector = new UpdateProjector(sessionId, {
        ...(header.title !== undefined && { headerTitle: header.title }),
      })
      const seen = proc.agent.updates.slice(view.since).filter((u) => u.sessionId === sessionId)
      for (const event of events) {
        if (event.seq > view.lastAck) break
        const expected = projector
          .updatesFor(event)
          .filter((u) => /^(user|agent)_message_chunk$/.test(u.update.sessionUpdate))
        if (event.seq < view.from) continue
        const got = seen.filter(
          (u) => seqOf(u) === event.seq && /^(user|agent)_message_chunk$/.test(u.update.sessionUpdate),
        )
        const ownPrompt =
          event.type === 'user/message' && view.own.has(textOf(event.data as { content: unknown }))
        // Live, a message streams in several chunks; a replay sends it whole: compare the text each
        // kind adds up to (shown twice, it would be there twice) and the message ids.
        const wanted = shown(ownPrompt ? [] : expected.map((u) => u.update as acp.SessionUpdate))
        const saw = shown(got.map((u) => u.update))
        if (saw !== wanted) {
          problems.push(
            `${sessionId} seq ${event.seq} (${event.type}): client saw ${saw}, a replay shows ${wanted}`,
          )
        }
      }
    }
  }
  for (const proc of procs) expect(await proc.agent.stop()).toBe(0)
  for (const proc of procs) expect(proc.agent.audit.problems).toEqual([])

  // Every file of the store is whole (one event per line, seqs in order) and loads. Every
  // acknowledged turn is in exactly one live file, at its seq, or (rewound away) in a rewind branch.
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => name.slice(0, -'.jsonl'.length))
  const own = new Map<string, SessionEvent[]>()
  const branches = new Set<string>()
  for (const sessionId of files) {
    const { header, events } = readStore(dir, sessionId)
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    const mine = events.slice(header.seedLength ?? 0)
    own.set(sessionId, mine)
    if (mine.some((e) => e.type === 'session/archived')) branches.add(sessionId)
  }
  for (const ack of acks) {
    const holders = [...own].filter(([, events]) =>
      events.some((e) => e.type === 'user/message' && textOf(e.data as { content: unknown }) === ack.text),
    )
    const live = holders.filter(([id]) => !branches.has(id))
    expect(live.length, `ack ${ack.text} in ${holders.map(([id]) => id)}`).toBeLessThanOrEqual(1)
    expect(holders.length, `ack ${ack.text}`).toBeGreaterThan(0)
    const [holder, events] = (live[0] ?? holders[0]) as [string, SessionEvent[]]
    const prompt = events.find(
      (e) => e.type === 'user/message' && textOf(e.data as { content: unknown }) === ack.text,
    )
    const end = events.find((e) => e.seq === ack.seq)
    expect(end?.type, `ack ${ack.text} at ${holder}:${ack.seq}`).toBe('turn/end')
    expect(prompt?.data).toMatchObject({ turn: (end?.data as { turn?: number } | undefined)?.turn })
  }
  const checker = await startProc(dir)
  for (const sessionId of files) {
    await checker.agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
  }
  expect(await checker.agent.stop()).toBe(0)
  expect(checker.agent.audit.problems).toEqual([])
  expect(problems, `seed ${seed}:\n${trace.join('\n')}`).toEqual([])
  return { acks: acks.length, kills, rewinds, files: files.length }
}

/** What message chunks show: per kind, the text they add up to and their message ids. */
function shown(updates: readonly acp.SessionUpdate[]): string {
  const kinds = new Map<string, { text: string; ids: Set<string> }>()
  for (const update of updates) {
    if (update.sessionUpdate !== 'user_message_chunk' && update.sessionUpdate !== 'agent_message_chunk')
      continue
    const kind = kinds.get(update.sessionUpdate) ?? { text: '', ids: new Set() }
    if (update.content.type === 'text') kind.text += update.content.text
    kind.ids.add(String(update.messageId))
    kinds.set(update.sessionUpdate, kind)
  }
  return JSON.stringify([...kinds].sort().map(([k, v]) => [k, v.text, [...v.ids]]))
}

function seqOf(update: acp.SessionNotification): number | undefined {
  return (update._meta as { dsh?: { seq?: number } } | undefined)?.dsh?.seq
}

function textOf(data: { content: unknown }): string {
  const content = data.content as { type: string; text?: string }[]
  return content.map((c) => c.text ?? '').join('')
}

function readStore(dir: string, sessionId: string): { header: SessionHeader; events: SessionEvent[] } {
  const text = readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')
  expect(text.endsWith('\n'), `${sessionId}.jsonl ends with a newline`).toBe(true)
  const lines = text.split('\n').slice(0, -1)
  return { header: JSON.parse(lines[0] as string), events: lines.slice(1).map((line) => JSON.parse(line)) }
}

describe('several agent processes on one store (model-based)', () => {
  it(
    'two processes: random opens, prompts, races, forks, loads, closes and kills',
    async () => {
      const { acks } = await runModel(2, SEED)
      expect(acks).toBeGreaterThan(0)
    },
    TIMEOUT_MS,
  )

  it(
    'three processes: the same, with three writers',
    async () => {
      const { acks } = await runModel(3, SEED + 1)
      expect(acks).toBeGreaterThan(0)
    },
    TIMEOUT_MS,
  )

  it.runIf(RUNS > 0)(
    `stress: ${RUNS} runs of ${PROCS} processes, ${OPS} operations each`,
    async () => {
      const total = { acks: 0, kills: 0, rewinds: 0, files: 0 }
      const started = Date.now()
      for (let run = 0; run < RUNS; run++) {
        const one = await runModel(PROCS, SEED + 100 + run)
        for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += one[key]
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
      }
      const seconds = Math.round((Date.now() - started) / 1000)
      console.error(
        `multi-process stress: ${RUNS} runs x ${PROCS} processes x ${OPS} ops in ${seconds}s: ${total.files} files checked, ${total.acks} acknowledged turns, ${total.kills} kills, ${total.rewinds} rewinds, 0 corrupt`,
      )
      expect(total.acks).toBeGreaterThan(0)
    },
    TIMEOUT_MS * Math.max(1, RUNS),
  )
})
