import { Context } from 'cordis'
import { createSequentialIdGenerator } from '../../src/session/ids.js'
import type { AnyEventInput } from '../../src/session/log/events.js'
import type { Session } from '../../src/session/session.js'
import { type SessionStore, type SessionStoreConfig, sessionsPlugin } from '../../src/session/store.js'

/** A started cordis context with `ctx.sessions`, a fixed clock and sequential ids, for tests. */
export interface StoreFixture {
  readonly ctx: Context
  readonly sessions: SessionStore
  /** Errors cordis reported through `internal/error` since the start. */
  readonly internalErrors: unknown[]
  /** Moves the injected clock forward by `ms`. */
  tick(ms?: number): void
  stop(): Promise<void>
}

export const T0 = Date.UTC(2026, 0, 1)

/**
 * Starts a fresh context with the store plugged the way the app plugs it. The clock starts at
 * {@link T0} and only moves on `tick`; ids are `ses_1`, `ses_2`, ... unless overridden.
 */
export async function startStore(config: SessionStoreConfig = {}): Promise<StoreFixture> {
  const ctx = new Context()
  const internalErrors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => {
    internalErrors.push(error)
  })
  let now = T0
  ctx.plugin(sessionsPlugin, {
    clock: () => now,
    idGenerator: createSequentialIdGenerator(),
    defaultCwd: '/work/project',
    ...config,
  })
  await ctx.start()
  return {
    ctx,
    sessions: ctx.sessions,
    internalErrors,
    tick: (ms = 1000) => {
      now += ms
    },
    stop: () => ctx.stop(),
  }
}

/** The events of one clean turn: a user message, one step with an answered tool call, an answer. */
export function cleanTurn(turn: number, text = `question ${turn}`): AnyEventInput[] {
  const callId = `call_${turn}`
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'assistant/message', data: { turn, step: 1, content: 'let me look', thought: 'hmm' } },
    { type: 'tool/call', data: { turn, step: 1, callId, name: 'read', input: { path: 'a.txt' } } },
    { type: 'tool/result', data: { turn, step: 1, callId, output: 'contents' } },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'step/start', data: { turn, step: 2 } },
    { type: 'assistant/message', data: { turn, step: 2, content: `answer ${turn}` } },
    { type: 'step/end', data: { turn, step: 2 } },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ]
}

/** Appends every input in order and returns the session. */
export function appendAll(session: Session, inputs: readonly AnyEventInput[]): Session {
  for (const input of inputs) session.append(input)
  return session
}

/** Runs `fn` and returns what it threw (fails the caller's expectation when it did not throw). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw, but the call returned')
}
