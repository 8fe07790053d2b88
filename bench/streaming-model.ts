import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Chunks in each answer of the streaming bench. */
export const CHUNKS = 10_000

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
export class PacedModel {
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
