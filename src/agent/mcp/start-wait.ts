/**
 * How long a turn's first model request waits for a session's MCP servers still starting (issue
 * 35.7b): only while a server can still plausibly come up. Each server's wait ends at its own
 * deadline, counted from when its start began:
 * - a server whose earlier start (in this process, same config) connected after `T` ms: `3T`, at
 *   least {@link MIN_KNOWN_MS} (a busy machine starts it slower than before);
 * - one whose earlier start never connected while a request waited for it: no wait;
 * - one never started before: {@link MCP_START_GRACE_MS}, or, once every other server of the
 *   session has settled (connected or failed), {@link SETTLED_GRACE_MS} after the last of them did;
 * all capped at {@link MCP_START_GRACE_MS}. The wait also ends as soon as every waited server settled.
 */

/** Longest wait of a turn's first model request for a session's servers still starting. */
export const MCP_START_GRACE_MS = 5000
/** Wait for a server never started before, once every other server of its session has settled. */
export const SETTLED_GRACE_MS = 1000
/** Least wait for a server that started before (its earlier start was quick). */
export const MIN_KNOWN_MS = 500

/** Servers whose last start is remembered. */
const RECORDED_SERVERS = 256

/** The time and timers the wait uses (injectable: tests drive it without waiting). */
export interface StartClock {
  now(): number
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void
}

export const systemClock: StartClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms)
    return () => clearTimeout(timer)
  },
}

/** One server of a session, as the wait sees it. */
export interface StartingServer {
  /** Its config as text: the key of its record. */
  readonly key: string
  readonly state: 'starting' | 'ready' | 'gone'
  /** When its start began ({@link StartClock.now}). */
  readonly startedAt: number
  /** When it connected or failed; undefined while starting. */
  readonly settledAt: number | undefined
  /** Settles (never rejects) once its start ended. */
  readonly opened: Promise<void>
}

/** What each server's last start took, in this process: a number of ms, or `stalled` (never came up while waited for). */
export class StartRecord {
  private readonly took = new Map<string, number | 'stalled'>()

  connected(key: string, ms: number): void {
    this.set(key, ms)
  }

  /** A wait gave up on the server: unless it connects later, the next start of it is not waited for. */
  stalled(key: string): void {
    this.set(key, 'stalled')
  }

  /** Keeps the {@link RECORDED_SERVERS} servers started last (a long-lived process meets many configs). */
  private set(key: string, took: number | 'stalled'): void {
    this.took.delete(key)
    this.took.set(key, took)
    for (const oldest of this.took.keys()) {
      if (this.took.size <= RECORDED_SERVERS) break
      this.took.delete(oldest)
    }
  }

  /** When the wait for `server` (one of `all`, the session's servers) ends at the latest. */
  deadline(server: StartingServer, all: readonly StartingServer[]): number {
    const took = this.took.get(server.key)
    if (took === 'stalled') return server.startedAt
    const grace = server.startedAt + MCP_START_GRACE_MS
    if (took !== undefined) return Math.min(grace, server.startedAt + Math.max(MIN_KNOWN_MS, 3 * took))
    const others = all.filter((other) => other !== server)
    if (others.length === 0 || others.some((other) => other.settledAt === undefined)) return grace
    const lastSettled = Math.max(...others.map((other) => other.settledAt ?? 0))
    return Math.min(grace, lastSettled + SETTLED_GRACE_MS)
  }
}

/**
 * Waits for `waiting` (still starting, of the session's servers `all`) until each has settled or
 * passed its deadline, or `signal` aborts. Resolves the servers that held it to their deadline
 * (still starting then), each recorded as stalled.
 */
export async function waitForStarts(
  waiting: readonly StartingServer[],
  all: readonly StartingServer[],
  context: { readonly record: StartRecord; readonly clock: StartClock; readonly signal: AbortSignal },
): Promise<StartingServer[]> {
  const { record, clock, signal } = context
  for (;;) {
    const open = waiting.filter((server) => server.state === 'starting')
    if (open.length === 0 || signal.aborted) return []
    const now = clock.now()
    const deadline = Math.max(...open.map((server) => record.deadline(server, all)))
    if (deadline <= now) {
      for (const server of open) record.stalled(server.key)
      return open
    }
    await untilFirst(open, deadline - now, clock, signal)
  }
}

/** Resolves once one of `open` settles, `ms` passed, or `signal` aborted. */
function untilFirst(
  open: readonly StartingServer[],
  ms: number,
  clock: StartClock,
  signal: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      cancel()
      signal.removeEventListener('abort', done)
      resolve()
    }
    const cancel = clock.after(ms, done)
    signal.addEventListener('abort', done, { once: true })
    for (const server of open) void server.opened.then(done)
  })
}
