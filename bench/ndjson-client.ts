import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'

/**
 * A minimal NDJSON JSON-RPC client for the round-trip benches: it drives one child process over
 * its stdio pipes, sends pre-serialized requests and counts the answers. Every answer line is
 * parsed and must carry a `result` (an error answer throws), so a server that answers wrongly
 * cannot look fast. The same client drives every server a bench compares.
 */
export class NdjsonBenchClient {
  private rest = ''
  private waiting: (() => void) | undefined
  private failure: Error | undefined
  private answered = 0
  private nextId = 1
  private readonly exited: Promise<unknown>

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.exited = once(child, 'exit')
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text: string) => this.onData(text))
    child.stdout.on('end', () => this.fail(new Error('the server closed its stdout')))
  }

  /** Spawns `command args` with piped stdio; its stderr goes to ours. */
  static spawn(command: string, args: readonly string[]): NdjsonBenchClient {
    const child = spawn(command, [...args], { stdio: 'pipe' })
    child.stderr.pipe(process.stderr)
    return new NdjsonBenchClient(child)
  }

  /** Sends one request and resolves with its answer's `result`. */
  async call(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++
    let result: unknown
    const previous = this.onAnswer
    this.onAnswer = (message) => {
      if (message.id === id) result = message.result
    }
    try {
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
      await this.roundTripsSent(1)
    } finally {
      this.onAnswer = previous
    }
    return result
  }

  /**
   * Sends `total` requests `{ method, params }` keeping at most `window` unanswered (all of a
   * window's room is written at once, as one write), and resolves when every one is answered.
   */
  async roundTrips(total: number, window: number, method: string, params: unknown): Promise<void> {
    const tail = `,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`
    const base = this.answered
    let sent = 0
    while (this.answered - base < total) {
      const room = Math.min(window - (sent - (this.answered - base)), total - sent)
      if (room > 0) {
        let batch = ''
        for (let i = 0; i < room; i++) batch += `{"jsonrpc":"2.0","id":${this.nextId++}${tail}`
        this.child.stdin.write(batch)
        sent += room
      }
      await this.nextAnswers()
    }
  }

  /** Ends the child's stdin and waits for it to exit. */
  async stop(): Promise<void> {
    this.child.stdout.removeAllListeners('end')
    this.child.stdin.end()
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited
  }

  private onAnswer: ((message: { id?: unknown; result?: unknown }) => void) | undefined

  private async roundTripsSent(count: number): Promise<void> {
    const until = this.answered + count
    while (this.answered < until) await this.nextAnswers()
  }

  private nextAnswers(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    return new Promise<void>((resolve) => {
      this.waiting = resolve
    }).then(() => {
      if (this.failure) throw this.failure
    })
  }

  private onData(text: string): void {
    const lines = (this.rest + text).split('\n')
    this.rest = lines.pop() ?? ''
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: unknown; result?: unknown; error?: unknown }
      if (message.result === undefined) {
        this.fail(new Error(`expected a result, got: ${line.slice(0, 300)}`))
        break
      }
      this.onAnswer?.(message)
      this.answered++
    }
    this.wake()
  }

  private fail(error: Error): void {
    this.failure ??= error
    this.wake()
  }

  private wake(): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }
}

/** Runs `fn` and returns how many operations per second `count` operations took. */
export async function opsPerSecond(count: number, fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint()
  await fn()
  return count / (Number(process.hrtime.bigint() - start) / 1e9)
}

/**
 * A minimal raw NDJSON server, the limit a JSON-RPC server can reach over the same pipes: one write
 * per input chunk; each line parsed and each answer serialized with `result`.
 */
export function rawEchoScript(result: unknown): string {
  return `
const result = ${JSON.stringify(result)}
let rest = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (text) => {
  const lines = (rest + text).split('\\n')
  rest = lines.pop()
  let out = ''
  for (const line of lines) {
    if (line.length === 0) continue
    const message = JSON.parse(line)
    out += JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n'
  }
  if (out) process.stdout.write(out)
})
`
}
