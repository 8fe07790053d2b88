import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { expect, it } from 'vitest'
import type { AgentProcess } from './agent-process.js'
import { never as neverGiven } from './question-answers.js'

// The questions-and-presence scenarios between two built agent processes, each with its own
// client, on one store: two processes on a JSONL directory, or two hosts on one database. Each
// test file gives the pair; the scenarios are the same contract.

/** How a client answers a permission request (aborting `signal` withdraws it). */
export type Answer = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>

/** The model both processes run: one turn writing `made.txt` (asking permission), then `done`. */
export const WRITE_MODEL = {
  turns: [
    [
      [{ toolCall: { name: 'write_text_file', input: { path: 'made.txt', content: 'made\n' } } }],
      [{ text: 'done' }],
    ],
  ],
}

/**
 * Two processes on one store, their clients named `window-a` and `window-b`, answering as told:
 * A made a session in `cwd` (whose model is {@link WRITE_MODEL}), B has it open.
 */
export type StartPair = (
  answerA: Answer,
  answerB: Answer,
) => Promise<{ a: AgentProcess; b: AgentProcess; sessionId: string; cwd: string }>

export const choose = (kind: string) => (params: acp.RequestPermissionRequest) => {
  const option = params.options.find((o) => o.kind === kind)
  if (!option) throw new Error(`no ${kind} option`)
  return { outcome: { outcome: 'selected' as const, optionId: option.optionId } }
}

/** An answer never given: resolves `cancelled` once the agent withdraws the request (see `question-answers.ts`). */
export const never =
  (withdrawn: { count: number }): Answer =>
  (params, signal) =>
    neverGiven(withdrawn)(params, signal, { outcome: { outcome: 'cancelled' as const } })

/**
 * Answers that wait until both clients were asked, then go in the same event-loop turn: each
 * `answer(kind)` picks that kind of option; `asked()` counts the clients asked.
 */
export function answeredTogether(): { answer: (kind: string) => Answer; asked: () => number } {
  const asked: Array<() => void> = []
  const answer =
    (kind: string): Answer =>
    (params) =>
      new Promise((resolve) => {
        asked.push(() => resolve(choose(kind)(params)))
        if (asked.length === 2) for (const go of asked) go()
      })
  return { answer, asked: () => asked.length }
}

/** Resolves once `check` holds (looked at after each turn of the event loop); fails if an agent exits. */
export async function until(check: () => boolean, agents: readonly AgentProcess[] = []): Promise<void> {
  while (!check()) {
    const dead = agents.find((agent) => agent.child.exitCode !== null)
    if (dead) throw new Error(`agent exited: ${dead.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

type Dsh = {
  question?: { toolCallId?: string; state: string; optionId?: string; action?: string; answeredBy?: string }
  presence?: { attached: number; clients: string[]; state: string }
}
/** A client as these helpers read it: the updates it received. */
type Received = { readonly updates: readonly acp.SessionNotification[] }
const dshOf = (u: acp.SessionNotification) => (u.update as { _meta?: { dsh?: Dsh } })._meta?.dsh ?? {}
/** The question outcomes (`_meta.dsh.question`) a client was shown, in order. */
export const outcomes = (c: Received) => c.updates.flatMap((u) => dshOf(u).question ?? [])
/** The presence updates (`_meta.dsh.presence`) a client was shown, in order. */
export const presences = (c: Received) => c.updates.flatMap((u) => dshOf(u).presence ?? [])
const finalStatuses = (c: AgentProcess) =>
  c.updates.flatMap((u) =>
    u.update.sessionUpdate === 'tool_call_update' &&
    (u.update.status === 'completed' || u.update.status === 'failed')
      ? [u.update.status]
      : [],
  )

const writeIt = (agent: AgentProcess, sessionId: string) =>
  agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] })

/** The scenarios, as tests of the calling file's `describe`, between the processes `pair` starts. */
export function crossQuestionScenarios(pair: StartPair): void {
  it("B's client answers a permission request of A's turn: the tool runs once as it said, A's client is withdrawn, both see the outcome", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId, cwd } = await pair(never(withdrawn), async (params) => {
      askedOfB++
      return choose('allow_once')(params)
    })
    expect((await writeIt(a, sessionId)).stopReason).toBe('end_turn')
    expect(askedOfB).toBe(1)
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made\n')
    await until(() => withdrawn.count === 1 && outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    expect(outcomes(a)).toEqual([
      { toolCallId: expect.any(String), state: 'answered', optionId: 'allow_once', answeredBy: 'window-b' },
    ])
    expect(outcomes(b)).toEqual(outcomes(a))
    expect(finalStatuses(a)).toEqual(['completed'])
    await until(() => finalStatuses(b).length === 1, [a, b])
    expect(finalStatuses(b)).toEqual(['completed'])
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it('clients of both processes answer in the same moment: one answer wins, the tool runs once, both see the same outcome', async () => {
    const together = answeredTogether()
    const { a, b, sessionId, cwd } = await pair(together.answer('reject_once'), together.answer('allow_once'))
    expect((await writeIt(a, sessionId)).stopReason).toBe('end_turn')
    expect(together.asked()).toBe(2)
    await until(() => outcomes(a).length > 0 && outcomes(b).length > 0, [a, b])
    const [seen] = outcomes(a)
    expect(outcomes(a)).toHaveLength(1)
    expect(outcomes(b)).toEqual(outcomes(a))
    const allowed = seen?.optionId === 'allow_once'
    expect(seen?.answeredBy).toBe(allowed ? 'window-b' : 'window-a')
    expect(existsSync(join(cwd, 'made.txt'))).toBe(allowed)
    expect(finalStatuses(a)).toHaveLength(1)
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("presence counts the clients of both processes; when B's client leaves, A is told", async () => {
    const { a, b, sessionId } = await pair(never({ count: 0 }), never({ count: 0 }))
    await until(() => presences(a).some((p) => p.attached === 2), [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 2, clients: ['window-a', 'window-b'], state: 'idle' })
    await until(() => presences(b).some((p) => p.attached === 2), [a, b])
    expect(presences(b).at(-1)).toMatchObject({ attached: 2, clients: ['window-b', 'window-a'] })
    await b.agent.request('session/close', { sessionId })
    await until(() => presences(a).at(-1)?.attached === 1, [a, b])
    expect(presences(a).at(-1)).toEqual({ attached: 1, clients: ['window-a'], state: 'idle' })
    expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
  })

  it("A is killed (SIGKILL) while its question is open: B's copy is withdrawn and A leaves B's presence", async () => {
    const withdrawn = { count: 0 }
    let askedOfB = 0
    const { a, b, sessionId } = await pair(never({ count: 0 }), (params, signal) => {
      askedOfB++
      return never(withdrawn)(params, signal)
    })
    void writeIt(a, sessionId).catch(() => {})
    await until(() => askedOfB === 1, [a, b])
    await until(() => presences(b).at(-1)?.state === 'waiting', [a, b])
    await a.kill()
    await until(() => withdrawn.count === 1, [b])
    await until(() => presences(b).at(-1)?.attached === 1, [b])
    expect(presences(b).at(-1)).toMatchObject({ attached: 1, clients: ['window-b'] })
    expect(b.audit.problems).toEqual([])
  })
}
