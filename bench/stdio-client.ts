import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'

/**
 * A client for the end-to-end session benches: drives one child over its stdio pipes, reads every
 * line it writes, and times requests: when the first `session/update` after the request arrived and
 * when the answer did. An error answer throws, so a server that fails cannot look fast.
 */
export class StdioBenchClient {
  private rest = ''
  private nextId = 1
  private readonly waiting = new Map<number, (message: Answer) => void>()
  private firstUpdate: ((at: bigint) => void) | undefined
  private updateWaiter: ((at: bigint) => void) | undefined
  private readonly exited: Promise<unknown>
  private lineWaiters: Array<{ needle: string; resolve: (at: bigint) => void }> = []
  updates = 0

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.exited = once(child, 'exit')
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text: string) => this.onData(text))
  }

  static spawn(args: readonly string[]): StdioBenchClient {
    const child = spawn(process.execPath, [...args], { stdio: 'pipe' })
    child.stderr.resume()
    return new StdioBenchClient(child)
  }

  get pid(): number {
    return this.child.pid as number
  }

  /** Sends a request; resolves with its result, the ms until its answer and until the first update. */
  async timed(
    method: string,
    params: unknown,
  ): Promise<{ result: unknown; ms: number; firstUpdateMs?: number }> {
    const start = process.hrtime.bigint()
    let first: bigint | undefined
    this.firstUpdate = (at) => {
      first = at
      this.firstUpdate = undefined
    }
    const answer = await this.send(method, params)
    const end = process.hrtime.bigint()
    this.firstUpdate = undefined
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
    return {
      result: answer.result,
      ms: Number(end - start) / 1e6,
      ...(first !== undefined && { firstUpdateMs: Number(first - start) / 1e6 }),
    }
  }

  /** Resolves with the time the next `session/update` arrives (one waiter at a time). */
  nextUpdate(): Promise<bigint> {
    return new Promise((resolve) => {
      this.updateWaiter = (at) => {
        this.updateWaiter = undefined
        resolve(at)
      }
    })
  }

  /** Resolves with the time the next line holding `needle` arrives (after this call). */
  untilLine(needle: string): Promise<bigint> {
    return new Promise((resolve) => this.lineWaiters.push({ needle, resolve }))
  }

  async call(method: string, params: unknown): Promise<unknown> {
    return (await this.timed(method, params)).result
  }

  private send(method: string, params: unknown): Promise<Answer> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  }

  async stop(): Promise<void> {
    this.child.stdin.end()
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited
  }

  private wakeLineWaiters(line: string): void {
    const at = process.hrtime.bigint()
    const waiting = this.lineWaiters
    this.lineWaiters = waiting.filter((waiter) => !line.includes(waiter.needle))
    for (const waiter of waiting) if (line.includes(waiter.needle)) waiter.resolve(at)
  }

  private onData(text: string): void {
    const lines = (this.rest + text).split('\n')
    this.rest = lines.pop() ?? ''
    for (const line of lines) {
      if (this.lineWaiters.length > 0) this.wakeLineWaiters(line)
      // Parse only the start of long lines: enough to tell an update from an answer.
      if (line.startsWith('{"jsonrpc":"2.0","method":"session/update"')) {
        this.updates++
        this.firstUpdate?.(process.hrtime.bigint())
        this.updateWaiter?.(process.hrtime.bigint())
        continue
      }
      const message = JSON.parse(line) as Answer & { id?: number; method?: string }
      if (message.method === 'session/update') {
        this.updates++
        this.firstUpdate?.(process.hrtime.bigint())
        this.updateWaiter?.(process.hrtime.bigint())
      } else if (typeof message.id === 'number') {
        this.waiting.get(message.id)?.(message)
        this.waiting.delete(message.id)
      }
    }
  }
}

interface Answer {
  readonly result?: unknown
  readonly error?: unknown
}

/** Resident set size of a process, MB (`VmRSS`), and its peak so far (`VmHWM`). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}
