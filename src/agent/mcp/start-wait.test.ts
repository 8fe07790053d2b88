import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Logger } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type StoreFixture,
  startStore,
  tempDir,
  withOpenSecondTurn,
} from '../../../test/support/session-store.js'
import type { SessionUpdate } from '../../session/index.js'
import { ToolRegistry } from '../tools/registry.js'
import type { McpServerConfig } from './server-config.js'
import { McpSessions } from './session-mcp.js'
import {
  MCP_START_GRACE_MS,
  MIN_KNOWN_MS,
  SETTLED_GRACE_MS,
  type StartClock,
  StartRecord,
} from './start-wait.js'

/** Time that moves only when the test moves it: the wait's deadlines are checked without waiting. */
class ManualClock implements StartClock {
  private time = 0
  private timers: { at: number; fn: () => void }[] = []

  now(): number {
    return this.time
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn }
    this.timers.push(timer)
    return () => {
      this.timers = this.timers.filter((t) => t !== timer)
    }
  }

  advance(ms: number): void {
    this.time += ms
    const due = this.timers.filter((t) => t.at <= this.time)
    this.timers = this.timers.filter((t) => t.at > this.time)
    for (const timer of due) timer.fn()
  }
}

/** Whether `promise` settled, after the callbacks already due have run (no time passes). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(() => {
    done = true
  })
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

const READY_SERVER = resolve(import.meta.dirname, '../../../test/support/mcp/stdio-server.mjs')
const dirs: { cleanup(): void }[] = []
let store: StoreFixture | undefined
let mcp: McpSessions | undefined
afterEach(async () => {
  await mcp?.closeAll()
  await store?.stop()
  for (const dir of dirs.splice(0)) dir.cleanup()
  mcp = undefined
  store = undefined
})

/** A stdio MCP server that never answers `initialize` (a tiny script that reads and says nothing). */
function neverAnswers(name: string): McpServerConfig {
  const dir = tempDir('dsh-mcp-hang-')
  dirs.push(dir)
  const script = join(dir.dir, 'hang.mjs')
  writeFileSync(script, 'process.stdin.resume()\n')
  return { transport: 'stdio', name, command: process.execPath, args: [script], env: [] }
}

const ready = (name: string): McpServerConfig => ({
  transport: 'stdio',
  name,
  command: process.execPath,
  args: [READY_SERVER],
  env: [],
})

async function setUp() {
  const cwd = tempDir('dsh-mcp-cwd-')
  dirs.push(cwd)
  store = await startStore({ defaultCwd: cwd.dir })
  const clock = new ManualClock()
  const logger = new Logger('mcp-test')
  logger.level = Number(process.env.DEBUG_MCP ?? 0)
  const isBusy = () => true
  mcp = new McpSessions({ registry: new ToolRegistry(), logger, timeoutMs: 600_000, isBusy, clock })
  const sent: SessionUpdate[] = []
  const session = (id: string) => withOpenSecondTurn(store?.sessions.create(id) ?? fail(), 'x')
  return { clock, mcp, sent, session, send: (update: SessionUpdate) => sent.push(update) }
}

function fail(): never {
  throw new Error('no store')
}

/** The agent messages a client without notices was sent. */
const texts = (sent: readonly SessionUpdate[]) => JSON.stringify(sent)

describe('the wait of a first model request for MCP servers still starting (35.7b)', () => {
  it('a server that never answers holds the first prompt for the grace once, then no prompt of a later session', async () => {
    const { clock, mcp, sent, session, send } = await setUp()
    const sleepy = neverAnswers('sleepy')
    const first = session('s1')
    await mcp.connect(first, [sleepy], () => {})
    const waiting = mcp.beforeStep(first, send, new AbortController().signal) ?? fail()
    clock.advance(MCP_START_GRACE_MS - 1)
    expect(await settled(waiting)).toBe(false)
    clock.advance(1)
    await waiting
    expect(texts(sent)).toContain(
      'MCP server \\"sleepy\\" is still starting (this prompt waited 5.0 s for it)',
    )

    // Its start never came up while a request waited: the next session's prompt does not wait for it.
    const second = session('s2')
    await mcp.connect(second, [sleepy], () => {})
    sent.length = 0
    // Undefined: nothing to wait for (the clock stands still: a wait would never end).
    expect(mcp.beforeStep(second, send, new AbortController().signal)).toBeUndefined()
    expect(texts(sent)).toContain('MCP server \\"sleepy\\" is still starting: its tools are offered')
  })

  it('once every other server is ready, one never started before holds the prompt a short while more', async () => {
    const { clock, mcp, sent, session, send } = await setUp()
    const s = session('s1')
    await mcp.connect(s, [ready('quick'), neverAnswers('sleepy')], () => {})
    const waiting = mcp.beforeStep(s, send, new AbortController().signal) ?? fail()
    // The clock stands still until `quick` is up: the wait then ends SETTLED_GRACE_MS after it.
    while (!mcp.servers(s.id).includes('quick')) await new Promise((resolve) => setImmediate(resolve))
    expect(await settled(waiting)).toBe(false)
    clock.advance(SETTLED_GRACE_MS)
    await waiting
    expect(texts(sent)).toContain(
      'MCP server \\"sleepy\\" is still starting (this prompt waited 1.0 s for it)',
    )
    expect(texts(sent)).not.toContain('\\"quick\\" is still starting')
  })

  it('a server that came up before is waited for three times what it took then, within the bounds', () => {
    const record = new StartRecord()
    const server = (key: string, startedAt: number) =>
      ({
        key,
        state: 'starting',
        startedAt,
        settledAt: undefined,
        opened: new Promise<void>(() => {}),
      }) as const
    record.connected('a', 400)
    record.connected('b', 100)
    record.connected('c', 3000)
    expect(record.deadline(server('a', 1000), [])).toBe(1000 + 1200)
    expect(record.deadline(server('b', 1000), [])).toBe(1000 + MIN_KNOWN_MS)
    expect(record.deadline(server('c', 1000), [])).toBe(1000 + MCP_START_GRACE_MS)
    // Never started before, alone or beside one still starting: the whole grace.
    const other = server('d', 0)
    expect(record.deadline(server('e', 1000), [])).toBe(1000 + MCP_START_GRACE_MS)
    expect(record.deadline(server('e', 1000), [other])).toBe(1000 + MCP_START_GRACE_MS)
    record.stalled('a')
    expect(record.deadline(server('a', 1000), [])).toBe(1000)
    // It remembers the servers started last, not every config a long-lived process met.
    for (let i = 0; i < 300; i++) record.connected(`k${i}`, 100)
    expect(record.deadline(server('a', 1000), [])).toBe(1000 + MCP_START_GRACE_MS)
    expect(record.deadline(server('k299', 1000), [])).toBe(1000 + MIN_KNOWN_MS)
  })
})
