import { randomUUID } from 'node:crypto'
import { PassThrough, type Readable, Writable } from 'node:stream'
import { CursorLog, type Entry, type Retention } from './cursor-log.js'
import { Unanswered } from './unanswered.js'

/** What serving ACP on a pair of streams gives back (`AcpServer.serve`'s connection). */
export interface Served {
  /** Resolves when every request read has its answer and every handler finished. */
  settle(): Promise<void>
  /** Starts no more calls; rejects our requests still waiting for the client (a permission: refused). */
  dispose(): void
}

/** Serves ACP on `input` (the client's messages, one per line) and `output` (ours). */
export type ServeStreams = (input: Readable, output: Writable) => Served

/** Where a transport writes the messages of the connection it is attached to. */
export interface Sink {
  send(entry: Entry): void
  /** Stops this transport (another one took the stream over, or the connection closed). */
  close(): void
}

const LF = 0x0a

/**
 * One logical ACP connection, outliving the transports (SSE streams, WebSockets) that come and
 * go: the client's messages go in with `deliver`; ours are numbered by `log` and handed to the one
 * attached `Sink`, and kept for a client that resumes after a cursor. With no transport attached
 * for `retention.seconds`, the connection expires: the ACP connection is ended (its requests to
 * the client are refused; sessions and running turns are not touched), and `onClosed` runs.
 */
export class LogicalConnection {
  readonly id = randomUUID()
  readonly log: CursorLog
  private readonly input = new PassThrough()
  private readonly served: Served
  private sink: Sink | undefined
  private expiry: NodeJS.Timeout | undefined
  private carry: Buffer | undefined
  private diverted = new Map<string, (line: string) => void>()
  private closing: Promise<void> | undefined
  /** The id (as JSON) of the client's `initialize`, whose answer gets `transport` added. */
  private initializeId: string | undefined
  private readonly companions = new Set<() => void>()
  private readonly requests = new Unanswered()
  /** Set once a transport was attached: a stream opened without a cursor then starts live. */
  attachedBefore = false

  constructor(
    serve: ServeStreams,
    private readonly retention: Retention,
    private readonly onClosed: (connection: LogicalConnection) => void,
  ) {
    this.log = new CursorLog(retention)
    const output = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.split(chunk)
        done()
      },
    })
    this.served = serve(this.input, output)
    this.startExpiry()
  }

  get closed(): boolean {
    return this.closing !== undefined
  }

  /**
   * Bytes of the client's requests delivered and not answered yet (queued, running, or waiting on
   * the client itself): what a client that sends faster than its requests are answered makes the
   * server hold. The transports refuse more past `maxBufferedBytes` (429, close 1008).
   */
  get pendingBytes(): number {
    return this.requests.bytes
  }

  /** One message of the client's (JSON text without line breaks); `message`: it parsed, if known. */
  deliver(json: string, message: unknown = parse(json)): void {
    if (this.closing) return
    const parsed = isObject(message) ? message : undefined
    if (this.initializeId === undefined && parsed?.method === 'initialize' && parsed.id !== undefined)
      this.initializeId = JSON.stringify(parsed.id)
    if (typeof parsed?.method === 'string' && isWireId(parsed.id))
      this.requests.add(JSON.stringify(parsed.id), json.length)
    this.input.write(`${json}\n`)
  }

  /**
   * The response to request `id` (its JSON), taken off the stream: it is answered in the body of
   * the POST that carried the request instead (`initialize` over HTTP).
   */
  divertResponse(id: string | number): Promise<string> {
    return new Promise((resolve) => this.diverted.set(JSON.stringify(id), resolve))
  }

  /** Makes `sink` the connection's one transport, first handing it `backlog`. */
  attach(sink: Sink, backlog: readonly Entry[]): void {
    const previous = this.sink
    this.sink = sink
    this.attachedBefore = true
    if (this.expiry) clearTimeout(this.expiry)
    this.expiry = undefined
    previous?.close()
    for (const entry of backlog) sink.send(entry)
    this.log.listen((entry) => sink.send(entry))
  }

  /** `sink` went away; the connection waits for another for the retention window. */
  detach(sink: Sink): void {
    if (this.sink !== sink) return
    this.sink = undefined
    this.log.listen(undefined)
    this.startExpiry()
  }

  get attached(): boolean {
    return this.sink !== undefined
  }

  /** Runs `close` when the connection closes (a stream that belongs to it); returns its removal. */
  companion(close: () => void): () => void {
    this.companions.add(close)
    return () => this.companions.delete(close)
  }

  /** Ends the ACP connection; sessions stay in the store. */
  close(): Promise<void> {
    this.closing ??= this.shutDown()
    return this.closing
  }

  private async shutDown(): Promise<void> {
    if (this.expiry) clearTimeout(this.expiry)
    this.input.end()
    this.served.dispose()
    await this.served.settle()
    const sink = this.sink
    this.sink = undefined
    this.log.listen(undefined)
    sink?.close()
    for (const close of this.companions) close()
    this.companions.clear()
    this.onClosed(this)
  }

  private startExpiry(): void {
    if (this.closing) return
    this.expiry = setTimeout(() => void this.close(), this.retention.seconds * 1000)
    this.expiry.unref()
  }

  /** Our output, cut into lines (a write may hold several, or end inside one). */
  private split(chunk: Buffer): void {
    let data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk
    this.carry = undefined
    let newline = data.indexOf(LF)
    while (newline !== -1) {
      this.emit(data.toString('utf8', 0, newline))
      data = data.subarray(newline + 1)
      newline = data.indexOf(LF)
    }
    if (data.length > 0) this.carry = Buffer.from(data)
  }

  private emit(text: string): void {
    if (this.requests.bytes > 0) this.requests.answered(text)
    const line = this.initializeId === undefined ? text : this.advertised(text)
    if (this.diverted.size > 0 && this.takeDiverted(line)) return
    this.log.append(line)
  }

  /**
   * The answer to `initialize` with `transport.resumable` in its capabilities (what this transport
   * keeps for a resume), any other line as it is.
   */
  private advertised(line: string): string {
    const message = parse(line)
    const result = message?.result as
      | { agentCapabilities?: Record<string, unknown>; capabilities?: Record<string, unknown> }
      | undefined
    if (message?.method !== undefined || JSON.stringify(message?.id) !== this.initializeId) return line
    this.initializeId = undefined
    // v1 answers `agentCapabilities`, v2 `capabilities`.
    const capabilities = result?.agentCapabilities ?? result?.capabilities
    if (!capabilities) return line
    capabilities.transport = {
      resumable: { retentionMessages: this.retention.messages, retentionSeconds: this.retention.seconds },
    }
    return JSON.stringify(message)
  }

  private takeDiverted(line: string): boolean {
    const message = parse(line)
    if (!message || message.method !== undefined) return false
    const key = JSON.stringify(message.id)
    const resolve = this.diverted.get(key)
    if (!resolve) return false
    this.diverted.delete(key)
    resolve(line)
    return true
  }
}

interface Parsed {
  readonly id?: unknown
  readonly method?: unknown
  readonly result?: unknown
}

function parse(line: string): Parsed | undefined {
  try {
    const value: unknown = JSON.parse(line)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Parsed {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isWireId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))
}
