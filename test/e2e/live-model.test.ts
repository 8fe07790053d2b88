import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { type RemoteClient, RemoteServer } from '../support/remote-server.js'

// The model-based test of issue 38: three clients on one session, two in one process over the
// remote transport (WebSocket and HTTP), one in another process over stdio, doing random prompts,
// cancels, permission answers, mode changes, forks and disconnects. Afterwards each client's view
// equals the log's projection (a replay in a fresh process), every update once and in order,
// every question answered exactly once, and every acknowledged prompt in the log.

const TURNS = 80
/** Turn i of the script: a write needing permission, a plain answer, or a slow one (to cancel). */
function scriptTurn(i: number): unknown[] {
  if (i % 3 === 0)
    return [
      [
        { text: `writing ${i}` },
        { toolCall: { name: 'write_text_file', input: { path: `f${i}.txt`, content: `${i}\n` } } },
      ],
      [{ text: `wrote ${i}` }],
    ]
  if (i % 3 === 1) return [[{ text: `answer ` }, { text: `${i} ` }, { text: 'in ' }, { text: 'pieces' }]]
  return [[{ text: `slow ${i}` }, { delayMs: 150 }, { text: ' done' }]]
}

type Op =
  | { kind: 'prompt'; client: number; wait: boolean }
  | { kind: 'cancel'; client: number }
  | { kind: 'mode'; client: number; modeId: string }
  | { kind: 'fork'; client: number }
  | { kind: 'disconnect'; client: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('prompt' as const), client: fc.nat(2), wait: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), client: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mode' as const),
      client: fc.nat(2),
      modeId: fc.constantFrom('ask', 'accept-edits', 'read-only'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fork' as const), client: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('disconnect' as const), client: fc.nat(1) }) },
)

type Dsh = {
  seq?: number
  turnEnd?: unknown
  question?: { toolCallId?: string; optionId?: string; state: string }
}
const dshOf = (u: acp.SessionNotification): Dsh =>
  ((u._meta as { dsh?: Dsh } | null | undefined)?.dsh ?? {}) as Dsh
const updateDsh = (u: acp.SessionNotification): Dsh =>
  (u.update as { _meta?: { dsh?: Dsh } })._meta?.dsh ?? {}

/** A client's view: what it was sent about the session, whichever connection it came on. */
interface View {
  readonly name: string
  /** The updates of earlier connections, up to what the next connection said it had seen. */
  readonly before: acp.SessionNotification[]
  driver: { agent: acp.ClientContext; updates: acp.SessionNotification[] }
  remote?: RemoteClient
  /** Permission requests it was asked, by tool call id, and whether each was withdrawn. */
  readonly asked: Map<string, { withdrawn: boolean }>
}

const CHUNKS = new Set(['agent_message_chunk', 'agent_thought_chunk'])

/**
 * A tool call's `pending` (its diff shown while permission is asked) and `in_progress` updates:
 * the live turn's news of the moment about the call, tagged with the call's seq. They are no event
 * of the log, and may come after a later event (a mode set while the call waits for its answer).
 */
const callNews = (u: acp.SessionNotification): boolean => {
  const status = (u.update as { status?: string }).status
  return u.update.sessionUpdate === 'tool_call_update' && (status === 'in_progress' || status === 'pending')
}

/**
 * A view as comparable entries: updates with a seq, after `base`; chunks of one message merged;
 * the user's own messages left out (the client that prompted is not sent its prompt back); the
 * turn end's own update left out (a replay carries it on the turn's last update); a tool call's
 * `pending` and `in_progress` updates left out (the live turn's clients are told them as they
 * happen; the log keeps the call and its end).
 */
function entries(updates: readonly acp.SessionNotification[], sessionId: string, base: number): string[] {
  const out: { seq: number; kind: string; body: string }[] = []
  for (const u of updates) {
    const seq = dshOf(u).seq
    if (u.sessionId !== sessionId || seq === undefined || seq <= base) continue
    const kind = u.update.sessionUpdate
    if (kind === 'user_message_chunk') continue
    if (kind === 'session_info_update' && dshOf(u).turnEnd !== undefined) continue
    // A tool's `pending` (its diff shown while permission is asked) and `in_progress` are the live
    // turn's news of the moment; the log keeps the call and its end.
    if (callNews(u)) continue
    const last = out.at(-1)
    if (CHUNKS.has(kind)) {
      const content = (u.update as { content?: { type?: string; text?: string } }).content
      const text = content?.type === 'text' ? (content.text ?? '') : ''
      if (last && last.seq === seq && last.kind === kind) {
        last.body += text
        continue
      }
      out.push({ seq, kind, body: text })
      continue
    }
    const { _meta, ...rest } = u.update as { _meta?: unknown }
    out.push({ seq, kind, body: JSON.stringify(rest) })
  }
  return out.map((e) => `${e.seq} ${e.kind} ${e.body}`)
}

function storedEvents(
  dir: string,
  sessionId: string,
): { seq: number; type: string; data?: { content?: unknown } }[] {
  return readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8')
    .split('\n')
    .slice(1, -1)
    .map((line) => JSON.parse(line))
}

/** Nothing more arrives for this long: the views are compared as they are (a failure shows why). */
const QUIET_MS = 10_000

/** Resolves once `done` holds, or `progress` has not moved for {@link QUIET_MS}. */
async function settle(
  done: () => boolean,
  progress: () => number,
  alive: () => string | undefined,
): Promise<void> {
  let last = progress()
  let since = Date.now()
  while (!done()) {
    const dead = alive()
    if (dead) throw new Error(dead)
    const now = progress()
    if (now !== last) {
      last = now
      since = Date.now()
    } else if (Date.now() - since > QUIET_MS) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Runs per test: each starts a server and a stdio process (about 1.5 s each on a loaded machine). */
const RUNS = 15

/** `DSH_MODEL_SEED=<seed>:<path>` (as fast-check prints them) runs that counterexample again. */
function replayOf(seed: string | undefined): { seed: number; path: string } | Record<string, never> {
  const [value, path] = (seed ?? '').split(':')
  return value && path ? { seed: Number(value), path } : {}
}

describe('three clients, two processes, one session: the model', () => {
  it('random prompts, cancels, permission answers, mode changes, forks and disconnects keep every view equal to the log', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 4, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        async (ops, allows) => {
          await runModel(ops, allows)
        },
      ),
      { numRuns: RUNS, endOnFailure: true, ...replayOf(process.env.DSH_MODEL_SEED) },
    )
  }, 600_000)
})

type ForkParams = { sessionId: string; cwd: string; mcpServers: [] }
/**
 * Forks the session at its end, as a user would: a turn running there is refused (`OPEN_TURN`,
 * -32602: a fork never clips silently), and the fork is asked again at the last boundary the
 * refusal names. Refused as busy (another process writes the session): nothing changed.
 */
async function fork(agent: acp.ClientContext, params: ForkParams): Promise<void> {
  const busy = (error: { code?: number }) => {
    if (error.code !== -32010) throw error
  }
  await agent.request('session/fork', params).catch(async (error: ForkRefusal) => {
    if (error.code !== -32602 || error.data?.code !== 'OPEN_TURN') return busy(error)
    const boundary = error.data.lastSafeBoundary
    await agent.request('session/fork', { ...params, _meta: { dsh: { boundary } } }).catch(busy)
  })
}
type ForkRefusal = { code?: number; data?: { code?: string; lastSafeBoundary?: number } }

async function runModel(ops: readonly Op[], allows: readonly boolean[]): Promise<void> {
  const store = mkdtempSync(join(tmpdir(), 'dsh-acp-model-store-'))
  const cwd = mkdtempSync(join(tmpdir(), 'dsh-acp-model-cwd-'))
  const script = join(cwd, 'model.json')
  writeFileSync(script, JSON.stringify({ turns: Array.from({ length: TURNS }, (_, i) => scriptTurn(i)) }))
  const args = ['--store', store, '--model', `script:${script}`]
  const server = await RemoteServer.start(args)
  const views: View[] = []
  const processes: AgentProcess[] = []
  const permission = (view: () => View, allow: boolean) => (app: acp.ClientApp) =>
    app.onRequest('session/request_permission', ({ params, signal }) => {
      const record = { withdrawn: false }
      view().asked.set(params.toolCall.toolCallId, record)
      // The withdrawal may come before this handler runs (both read in one go).
      if (signal.aborted) record.withdrawn = true
      else
        signal.addEventListener('abort', () => {
          record.withdrawn = true
        })
      const kind = allow ? 'allow_once' : 'reject_once'
      const option = params.options.find((o) => o.kind === kind) ?? params.options[0]
      return Promise.resolve({ outcome: { outcome: 'selected' as const, optionId: option?.optionId ?? '' } })
    })
  const remote = async (index: number, kind: 'ws' | 'http'): Promise<RemoteClient> => {
    const client = server.client(kind, {
      cwd,
      setupClient: permission(() => views[index] as View, allows[index] ?? true),
    })
    await client.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: `client-${index}`, version: '1' },
    })
    return client
  }
  try {
    const r0 = await remote(0, 'ws')
    views.push({ name: 'ws', before: [], driver: r0, remote: r0, asked: new Map() })
    const r1 = await remote(1, 'http')
    views.push({ name: 'http', before: [], driver: r1, remote: r1, asked: new Map() })
    const stdio = new AgentProcess({
      storeDir: store,
      cwd,
      args: ['--model', `script:${script}`],
      setupClient: permission(() => views[2] as View, allows[2] ?? true),
    })
    processes.push(stdio)
    await stdio.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: 'client-2', version: '1' },
    })
    views.push({ name: 'stdio', before: [], driver: stdio, asked: new Map() })
    const { sessionId } = await r0.agent.request('session/new', { cwd, mcpServers: [] })
    await r1.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    await stdio.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const base = storedEvents(store, sessionId).at(-1)?.seq ?? 0
    const alive = () =>
      server.child.exitCode !== null
        ? `the server exited: ${server.stderr}`
        : stdio.child.exitCode !== null
          ? `stdio exited: ${stdio.stderr}`
          : undefined

    const pending: Promise<void>[] = []
    const acked: string[] = []
    const trace: string[] = []
    let texts = 0
    const lastSeen = (view: View) =>
      Math.max(
        0,
        ...[...view.before, ...view.driver.updates]
          .filter((u) => u.sessionId === sessionId)
          .map((u) => dshOf(u).seq ?? 0),
      )
    for (const op of ops) {
      const view = views[op.client] as View
      trace.push(`${op.kind} ${view.name}${'wait' in op ? ` wait=${op.wait}` : ''}`)
      if (process.env.DSH_MODEL_TRACE) console.error(trace.at(-1))
      if (op.kind === 'prompt') {
        const text = `prompt ${++texts}`
        const sent = view.driver.agent
          .request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
          .then(
            () => {
              acked.push(text)
            },
            (error: { code?: number }) => {
              // A connection closed under its prompt: not acknowledged. Anything else is a defect.
              if (!view.remote || error.code !== undefined) throw error
            },
          )
        if (op.wait) await sent
        else pending.push(sent)
      } else if (op.kind === 'cancel') {
        await view.driver.agent.notify('session/cancel', { sessionId })
      } else if (op.kind === 'mode') {
        await view.driver.agent
          .request('session/set_mode', { sessionId, modeId: op.modeId })
          .catch((error: { code?: number }) => {
            // Another process writes the session: refused as busy, nothing changed.
            if (error.code !== -32010) throw error
          })
      } else if (op.kind === 'fork') {
        await fork(view.driver.agent, { sessionId, cwd, mcpServers: [] })
      } else if (op.kind === 'disconnect' && view.remote) {
        // Leaves, comes back on a new connection and asks only for what it has not seen. The last
        // event it saw may have reached it only in part: a message's chunks stream before its event
        // is written, and an event's updates (a mode's current_mode_update, config_option_update)
        // are separate messages, the connection may close between them. So it asks again from the
        // seq before the last one it saw and drops what it has of that one: it comes again whole.
        const seen = Math.max(0, lastSeen(view) - 1)
        // What it keeps is all it has through `seen`, of every connection before too (the last one
        // it saw may be an earlier connection's, when this one saw nothing new).
        const kept = [...view.before, ...view.driver.updates].filter(
          (u) => u.sessionId !== sessionId || (dshOf(u).seq ?? 0) <= seen,
        )
        view.before.splice(0, view.before.length, ...kept)
        view.remote.close()
        const again = await remote(op.client, view.name === 'ws' ? 'ws' : 'http')
        view.driver = again
        view.remote = again
        await again.agent.request('session/load', {
          sessionId,
          cwd,
          mcpServers: [],
          _meta: { dsh: { afterSeq: seen } },
        })
      }
    }
    await Promise.all(pending)
    if (process.env.DSH_MODEL_TRACE) console.error('prompts settled')
    const events = () => storedEvents(store, sessionId)

    const replayer = new AgentProcess({ storeDir: store, cwd, args: ['--model', `script:${script}`] })
    processes.push(replayer)
    await replayer.initialize()
    await replayer.agent.request('session/load', { sessionId, cwd, mcpServers: [] })
    const replayed = entries(replayer.updates, sessionId, base)
    // Every view reaches the replay, or stops changing (then it is compared, and the difference shown).
    await settle(
      () =>
        views.every(
          (view) =>
            entries([...view.before, ...view.driver.updates], sessionId, base).length >= replayed.length,
        ),
      () => views.reduce((sum, view) => sum + view.driver.updates.length, 0),
      alive,
    )
    for (const view of views) {
      const seen = [...view.before, ...view.driver.updates]
      const mine = entries(seen, sessionId, base)
      if (process.env.DSH_MODEL_TRACE && JSON.stringify(mine) !== JSON.stringify(replayed)) {
        const at = mine.findIndex((entry, i) => entry !== replayed[i])
        console.error(`${view.name} differs at ${at}:\n  mine: ${mine[at]}\n  log:  ${replayed[at]}`)
      }
      expect(mine, `${view.name} after ${trace.join(', ')}`).toEqual(replayed)
      const seqs = seen
        .filter((u) => u.sessionId === sessionId && !callNews(u))
        .map((u) => dshOf(u).seq)
        .filter((s) => s !== undefined)
      expect(seqs, `${view.name}: in order`).toEqual([...seqs].sort((a, b) => a - b))
      // Each question it saw settled, once.
      const outcomes = seen.flatMap((u) => (u.sessionId === sessionId ? (updateDsh(u).question ?? []) : []))
      const ids = outcomes.map((o) => o.toolCallId)
      expect(new Set(ids).size, `${view.name}: one outcome per question`).toBe(ids.length)
    }
    // Every question answered exactly once: each tool call ended once in the log, and every
    // client that saw a question saw the same outcome.
    const stored = events()
    const prompts = stored.filter((e) => e.type === 'user/message').map((e) => JSON.stringify(e.data))
    for (const text of acked)
      expect(
        prompts.some((p) => p.includes(`"${text}"`)),
        `acknowledged ${text} is in the log`,
      ).toBe(true)
    const byCall = new Map<string, Set<string>>()
    for (const view of views) {
      for (const u of [...view.before, ...view.driver.updates]) {
        const q = updateDsh(u).question
        if (u.sessionId !== sessionId || q?.toolCallId === undefined) continue
        const set = byCall.get(q.toolCallId) ?? new Set()
        set.add(`${q.state} ${q.optionId ?? ''}`)
        byCall.set(q.toolCallId, set)
      }
    }
    for (const [call, seen] of byCall) expect(seen.size, `question ${call}: one outcome`).toBe(1)
    expect([...processes.flatMap((p) => p.audit.problems)]).toEqual([])
  } finally {
    for (const view of views) view.remote?.close()
    for (const agent of processes) if (agent.child.exitCode === null) await agent.kill()
    await server.stop()
    rmSync(store, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  }
}
