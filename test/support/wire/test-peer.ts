import type { Readable, Writable } from 'node:stream'

/**
 * The far end of an NDJSON connection, for tests: writes raw bytes and collects every line it
 * receives, unparsed, so tests can check the exact framing. Not used by the server itself.
 */
export class TestPeer {
  /** Every line received so far, without its `\n`. */
  readonly lines: string[] = []
  private rest = ''
  private readonly waiters: Array<() => void> = []
  private ended = false

  constructor(
    private readonly toServer: Writable,
    fromServer: Readable,
  ) {
    fromServer.setEncoding('utf8')
    fromServer.on('data', (text: string) => {
      const parts = (this.rest + text).split('\n')
      this.rest = parts.pop() ?? ''
      this.lines.push(...parts)
      this.wake()
    })
    fromServer.on('end', () => {
      this.ended = true
      this.wake()
    })
  }

  /** Received lines parsed as JSON (throws on a line that is not exactly one JSON value). */
  get messages(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  }

  /** Bytes that arrived after the last `\n` (should stay empty: every line is terminated). */
  get unterminated(): string {
    return this.rest
  }

  send(data: string | Buffer): void {
    this.toServer.write(data)
  }

  sendMessage(message: unknown): void {
    this.send(`${JSON.stringify(message)}\n`)
  }

  end(): void {
    this.toServer.end()
  }

  /** Resolves with the first received message that satisfies `test`, waiting for it if needed. */
  async waitFor(test: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.messages.find(test)
      if (found) return found
      if (this.ended) throw new Error('the server output ended before the expected message')
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Resolves with the response to request `id`. */
  response(id: string | number): Promise<Record<string, unknown>> {
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m))
  }

  /**
   * Sends a `ping` request with a fresh id and waits for its answer: every line the server
   * produced for input sent before it has then been received.
   */
  async sync(): Promise<void> {
    const id = `sync-${this.lines.length}-${Math.random()}`
    this.sendMessage({ jsonrpc: '2.0', id, method: 'ping' })
    await this.response(id)
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0, this.waiters.length)) resolve()
  }
}
