import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BenchRow } from './harness.js'

/**
 * Issue 13, streaming: the time from a model server writing a token chunk to the client receiving
 * its `agent_message_chunk`, p50 and p99 over a 10,000-chunk answer. The model server (here, on
 * 127.0.0.1) writes chunk i+1 only once the client got chunk i, so each sample is one chunk's trip
 * with nothing queued ahead of it. Ours: the built server (`--model openai` pointed at it), spawned
 * over stdio. Baseline, the same way: a relay that fetches the stream, parses SSE and writes one
 * line per chunk to its stdout.
 *
 * Each process answers twice. The rows are the first answer of a fresh process, which
 * includes its warm-up (V8 compiling the hot path, the young heap growing). The rows of the second
 * answer (same process, same session) have no target: they show how much of the first answer's
 * tail is that warm-up, which an editor's long-lived agent pays once.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.js')
const built = process.env.DSH_BENCH_CLI ?? 'dist/cli.js'
const CHUNKS = 10_000
/** Answers per process: the first is a fresh process's, the second a warm one's. */
const ANSWERS = 2

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return sse({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'bench-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
}

/** A model server answering each request with CHUNKS chunks `c<i>;`, one after the client saw the last. */
class PacedModel {
  readonly sentAt: bigint[] = []
  readonly gotAt: bigint[] = []
  private waiting: (() => void) | undefined
  private next = 0
  private readonly server: Server

  constructor() {
    this.server = createServer((req, res) => {
      req.resume()
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(chunk({ role: 'assistant', content: '' }))
        for (let i = 0; i < CHUNKS; i++) {
          const got = new Promise<void>((resolve) => {
            this.waiting = resolve
            this.next = i
          })
          this.sentAt[i] = process.hrtime.bigint()
          res.write(chunk({ content: `c${i};` }))
          await got
        }
        res.write(chunk({}, 'stop'))
        res.end('data: [DONE]\n\n')
      })
    })
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1')
    await once(this.server, 'listening')
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`
  }

  /** The client saw text holding `c<i>;` chunks. */
  saw(text: string): void {
    const at = process.hrtime.bigint()
    for (const match of text.matchAll(/c(\d+);/g)) {
      const i = Number(match[1])
      this.gotAt[i] ??= at
      if (i === this.next) this.waiting?.()
    }
  }

  reset(): void {
    this.sentAt.length = 0
    this.gotAt.length = 0
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  latencies(): number[] {
    return this.sentAt.map((sent, i) => Number((this.gotAt[i] as bigint) - sent) / 1e6)
  }
}

/** Reads a child's stdout lines; hands `agent_message_chunk` texts to `onText`, answers to `onAnswer`. */
function readLines(
  child: ChildProcessWithoutNullStreams,
  onText: (text: string) => void,
  onAnswer: (m: Answer) => void,
) {
  let rest = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (data: string) => {
    const lines = (rest + data).split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) {
      const message = JSON.parse(line) as Answer & { method?: string; params?: Params }
      if (message.method === 'session/update') {
        const update = message.params?.update
        if (update?.sessionUpdate === 'agent_message_chunk') onText(update.content?.text ?? '')
      } else onAnswer(message)
    }
  })
}

interface Answer {
  readonly id?: number
  readonly result?: unknown
  readonly error?: unknown
}
interface Params {
  readonly update?: { sessionUpdate?: string; content?: { text?: string } }
}

class Rpc {
  private nextId = 1
  private readonly waiting = new Map<number, (m: Answer) => void>()
  readonly child: ChildProcessWithoutNullStreams

  constructor(args: readonly string[], env: NodeJS.ProcessEnv, model: PacedModel) {
    this.child = spawn(process.execPath, [...args], { stdio: 'pipe', env })
    this.child.stderr.resume()
    readLines(
      this.child,
      (text) => model.saw(text),
      (m) => {
        if (typeof m.id === 'number') this.waiting.get(m.id)?.(m)
      },
    )
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++
    const answer = await new Promise<Answer>((resolve) => {
      this.waiting.set(id, resolve)
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
    return answer.result
  }

  async stop(): Promise<void> {
    this.child.stdin.end()
    if (this.child.exitCode === null) await once(this.child, 'exit')
  }
}

function relayScript(): string {
  return `
let rest = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', async (text) => {
  const lines = (rest + text).split('\\n')
  rest = lines.pop()
  for (const line of lines) {
    const request = JSON.parse(line)
    if (request.method === 'session/prompt') {
      const response = await fetch(request.params.url + '/chat/completions', { method: 'POST', body: '{}' })
      const decoder = new TextDecoder()
      let buffer = ''
      for await (const bytes of response.body) {
        buffer += decoder.decode(bytes, { stream: true })
        let end
        while ((end = buffer.indexOf('\\n\\n')) !== -1) {
          const event = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = event.startsWith('data: ') ? event.slice(6) : ''
          if (data === '' || data === '[DONE]') continue
          const text = JSON.parse(data).choices[0]?.delta?.content
          if (text) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } }) + '\\n')
        }
      }
    }
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }) + '\\n')
  }
})
`
}

/**
 * A chunk slower than this stalled (a GC pause, a thread waiting for a core): the latencies are
 * bimodal, ~0.1 ms or over this, and p99 falls among the stalls once they are over 1 % of chunks.
 */
const STALL_MS = 0.5

/** How many of `latencies` (ms) are over {@link STALL_MS}, per 10,000. */
function stalls(latencies: readonly number[]): number {
  return Math.round((latencies.filter((ms) => ms > STALL_MS).length * 10_000) / latencies.length)
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

async function ours(model: PacedModel, url: string): Promise<number[][]> {
  const store = mkdtempSync(join(tmpdir(), 'dsh-bench-stream-'))
  const rpc = new Rpc(
    [
      cli,
      '--store',
      store,
      '--model',
      'openai',
      '--base-url',
      url,
      '--model-name',
      'bench-model',
      '--log-level',
      'error',
    ],
    { ...process.env, DSH_API_KEY: 'bench-key' },
    model,
  )
  try {
    await rpc.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = (await rpc.call('session/new', { cwd: store, mcpServers: [] })) as {
      sessionId: string
    }
    const answers: number[][] = []
    for (let answer = 0; answer < ANSWERS; answer++) {
      model.reset()
      await rpc.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })
      answers.push(model.latencies())
    }
    return answers
  } finally {
    await rpc.stop()
    rmSync(store, { recursive: true, force: true })
  }
}

async function relay(model: PacedModel, url: string): Promise<number[][]> {
  const rpc = new Rpc(['--input-type=module', '-e', relayScript()], process.env, model)
  try {
    await rpc.call('initialize', {})
    const answers: number[][] = []
    for (let answer = 0; answer < ANSWERS; answer++) {
      model.reset()
      await rpc.call('session/prompt', { url })
      answers.push(model.latencies())
    }
    return answers
  } finally {
    await rpc.stop()
  }
}

export const suite = {
  name: 'streaming',
  async run(): Promise<BenchRow[]> {
    const model = new PacedModel()
    const url = await model.start()
    try {
      await relay(model, url) // warm up
      const a = await ours(model, url)
      const b = await relay(model, url)
      const c = await ours(model, url)
      const d = await relay(model, url)
      const mine = (answer: number) => [...(a[answer] ?? []), ...(c[answer] ?? [])]
      const theirs = (answer: number) => [...(b[answer] ?? []), ...(d[answer] ?? [])]
      const row = (answer: number, p: number): BenchRow => ({
        group: 'streaming',
        name:
          answer === 0
            ? `model chunk to client agent_message_chunk, p${p}`
            : `the same, p${p}, second answer of the process (no target)`,
        ours: percentile(mine(answer), p) * 1000,
        baselineName: 'relay: fetch, parse SSE, one line per chunk',
        baseline: percentile(theirs(answer), p) * 1000,
        unit: 'µs',
        better: 'lower',
        ...(answer === 0 && { target: 1.2 }),
        note: `${CHUNKS} chunks x 2 runs each, interleaved; ${built} --model openai; one chunk in flight; ${
          answer === 0 ? 'first answer of a fresh process' : 'after one answer, same session'
        }; chunks over ${STALL_MS * 1000} µs per 10,000: ours ${stalls(mine(answer))}, relay ${stalls(theirs(answer))}`,
      })
      return [row(0, 50), row(0, 99), row(1, 50), row(1, 99)]
    } finally {
      await model.close()
    }
  },
}
