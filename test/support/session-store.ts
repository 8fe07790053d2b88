import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach } from 'vitest'
import { type FileSystem, JsonlPersistence, persistencePlugin } from '../../src/persistence/index.js'
import { createSequentialIdGenerator, systemClock } from '../../src/session/ids.js'
import type { AnyEventInput } from '../../src/session/log/events.js'
import type { Session } from '../../src/session/session.js'
import { type SessionStore, type SessionStoreConfig, sessionsPlugin } from '../../src/session/store/store.js'

// The one store fixture of the tests: the store plugged the way the app plugs it, in memory or on
// the JSONL backend, and the session logs the tests write into it.

/** A started cordis context with `ctx.sessions`. */
export interface StoreFixture {
  readonly ctx: Context
  readonly sessions: SessionStore
  /** Errors cordis reported through `internal/error` (plugin apply/start failures) since the start. */
  readonly internalErrors: unknown[]
  /** Moves the store's clock forward by `ms` (no effect when the config brought its own clock). */
  tick(ms?: number): void
  /** Stops the context; on disk, closes every live session first and waits for the backend. */
  stop(): Promise<void>
}

/** A store on the JSONL backend. */
export interface DiskStoreFixture extends StoreFixture {
  readonly persistence: JsonlPersistence
}

export const T0 = Date.UTC(2026, 0, 1)

/** A store on disk: its file system, store config, and `writebackBytes` (see `JsonlPersistenceConfig`). */
interface DiskStoreOptions {
  readonly fs?: FileSystem
  readonly store?: SessionStoreConfig
  readonly writebackBytes?: number
}

/**
 * Starts a fresh context with the store. In memory (no `dir`): the clock starts at {@link T0} and
 * only moves on `tick`, ids are `ses_1`, `ses_2`, ..., the default cwd is `/work/project`. On disk
 * (`dir`): the JSONL backend on `dir` (through `fs` if given), the system clock (plus the ticks),
 * the default time-ordered ids, the default cwd `/work`. `config`/`options.store` override these.
 */
export async function startStore(config?: SessionStoreConfig): Promise<StoreFixture>
export async function startStore(dir: string, options?: DiskStoreOptions): Promise<DiskStoreFixture>
export async function startStore(
  where: string | SessionStoreConfig = {},
  options: DiskStoreOptions = {},
): Promise<StoreFixture | DiskStoreFixture> {
  const ctx = new Context()
  const internalErrors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => {
    internalErrors.push(error)
  })
  let ticks = 0
  const tick = (ms = 1000) => {
    ticks += ms
  }
  if (typeof where !== 'string') {
    ctx.plugin(sessionsPlugin, {
      clock: () => T0 + ticks,
      idGenerator: createSequentialIdGenerator(),
      defaultCwd: '/work/project',
      ...where,
    })
    await ctx.start()
    return { ctx, sessions: ctx.sessions, internalErrors, tick, stop: () => ctx.stop() }
  }
  ctx.plugin(sessionsPlugin, { clock: () => systemClock() + ticks, defaultCwd: '/work', ...options.store })
  const { fs, writebackBytes } = options
  ctx.plugin(persistencePlugin, { dir: where, ...(fs && { fs }), ...(writebackBytes && { writebackBytes }) })
  await ctx.start()
  const persistence = ctx.get('persistence')
  if (!(persistence instanceof JsonlPersistence))
    throw new Error(`persistence did not start: ${internalErrors}`)
  return {
    ctx,
    sessions: ctx.sessions,
    persistence,
    internalErrors,
    tick,
    async stop() {
      await ctx.sessions.closeAll().catch(() => {})
      await persistence.idle()
      await ctx.stop()
      await persistence.idle()
    },
  }
}

/**
 * A fresh in-memory store (see {@link startStore}) for each test of the calling file: started
 * before the test, stopped after it. The fixture returned reads the running test's store, so it is
 * used inside tests only.
 */
export function storePerTest(config?: SessionStoreConfig): StoreFixture {
  let current: StoreFixture | undefined
  beforeEach(async () => {
    current = await startStore(config)
  })
  afterEach(async () => {
    await current?.stop()
    current = undefined
  })
  const now = (): StoreFixture => {
    if (current === undefined) throw new Error('storePerTest: the store exists only while a test runs')
    return current
  }
  return {
    get ctx() {
      return now().ctx
    },
    get sessions() {
      return now().sessions
    },
    get internalErrors() {
      return now().internalErrors
    },
    tick: (ms) => now().tick(ms),
    stop: () => now().stop(),
  }
}

/**
 * Writes into a new `session`: turn 1 closed (seq 1-11), a title (12), a plugin event (13), then
 * turn 2 left open in its first step, which calls the tool `tool` as call `c` (14-17).
 */
export function withOpenSecondTurn(session: Session, tool: string): Session {
  appendAll(session, cleanTurn(1))
  session.append({ type: 'session/title', data: { title: 'Busy' } })
  session.append({ type: 'metrics:sample', data: { tokens: 12 } })
  session.append({ type: 'turn/start', data: { turn: 2 } })
  session.append({ type: 'user/message', data: { turn: 2, content: [{ type: 'text', text: 'more' }] } })
  session.append({ type: 'step/start', data: { turn: 2, step: 1 } })
  session.append({ type: 'tool/call', data: { turn: 2, step: 1, callId: 'c', name: tool, input: {} } })
  return session
}

/** A fresh directory under the OS temp dir; `cleanup` removes it. */
export function tempDir(prefix = 'dsh-persist-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A fresh temp directory for each test of the calling file, removed after it; `dir` is the running test's. */
export function tempDirPerTest(prefix?: string): { readonly dir: string } {
  let current: ReturnType<typeof tempDir> | undefined
  beforeEach(() => {
    current = tempDir(prefix)
  })
  afterEach(() => {
    current?.cleanup()
    current = undefined
  })
  return {
    get dir() {
      if (current === undefined)
        throw new Error('tempDirPerTest: the directory exists only while a test runs')
      return current.dir
    },
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

/** The events of one short turn: a user message `text` and one step answering `re: <text>`. */
export function shortTurn(turn: number, text: string): AnyEventInput[] {
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'assistant/message', data: { turn, step: 1, content: `re: ${text}` } },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ]
}

/** Appends every input in order and returns the session. */
export function appendAll(session: Session, inputs: readonly AnyEventInput[]): Session {
  for (const input of inputs) session.append(input)
  return session
}

/** Appends the next {@link shortTurn} to `session`. */
export function appendTurn(session: Session, text: string): void {
  appendAll(session, shortTurn(session.lastTurn + 1, text))
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
