import type { Writable } from 'node:stream'
import { AbstractMessageWriter, type Message, type MessageWriter, type ResponseMessage } from 'vscode-jsonrpc'
import { isWireId } from '../envelope.js'
import type { RequestLedger } from '../ledger.js'
import { Batch, batchPieces, HANDED } from './write-batch.js'

export interface NdjsonWriterOptions {
  /** The peer's ids in flight, shared with the reader: a response written releases its id. */
  readonly ledger?: RequestLedger
  /** Sees every line exactly as written, without its `\n`, in write order. */
  readonly onLine?: (line: string) => void
}

/** Lines waiting for their microtask are written at once when they add up to this many characters. */
export const MAX_HELD_BYTES = 64 * 1024
/** Lines waiting for their microtask are written at once when there are this many. */
export const MAX_HELD_LINES = 256

/** Schedules microtasks without `queueMicrotask`'s async-resource bookkeeping. */
const RESOLVED = Promise.resolve()

/**
 * A vscode-jsonrpc `MessageWriter` for NDJSON: each message is written as
 * `JSON.stringify(message) + '\n'` (JSON.stringify escapes every control character, so a line
 * never holds a raw newline), in call order.
 *
 * Contracts:
 * - `write()` serializes synchronously and resolves once its line has been handed to the stream:
 *   in a microtask, together with every line written before then (one write, one wake-up of the
 *   peer, however many lines), except that a notification or request starting a batch, when none
 *   went out at once since the last microtask, is handed over at once; after a `'drain'` when the
 *   stream pushed back. No line waits for a turn of the event loop (holding lines across turns
 *   while a chunk was still being started bought nothing in the wire bench). It rejects only when
 *   the message cannot be serialized (nothing is written then). It never rejects because the output is gone.
 * - Once the output fails (EPIPE, any `'error'`) or closes, the writer is closed: `onError` fires
 *   for the first error, `onClose` fires once, and later writes resolve without writing anything.
 * - `onLine` sees only lines that are written, not those dropped after the output closed.
 * - `drain()` resolves when every line written so far has been handed to the OS (the stream's
 *   write callbacks have run), or the output is closed.
 * - `end()` ends the stream after the queued lines.
 */
export class NdjsonMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private batch: Batch | undefined
  private blocked = false
  private unflushed = 0
  private closed = false
  private ending = false
  private drainWaiters: Array<() => void> = []
  private heldBytes = 0
  private flushQueued = false
  private handedAtOnce = false

  constructor(
    private readonly output: Writable,
    private readonly options: NdjsonWriterOptions = {},
  ) {
    super()
    output.on('error', this.onStreamError)
    output.on('close', this.onStreamClose)
    output.on('drain', this.onStreamDrain)
  }

  /** True once the output has failed or closed. */
  get isClosed(): boolean {
    return this.closed
  }

  /**
   * `serialized`, when given, must be the message's line exactly as this writer would write it:
   * `JSON.stringify(message)` in UTF-8, then `\n` (e.g. copied from where the message's long
   * strings were read). It is written as it is.
   */
  write(message: Message, serialized?: Uint8Array): Promise<void> {
    const failure = this.send(message, serialized)
    if (failure) return Promise.reject(failure)
    return this.batch?.handed ?? HANDED
  }

  /**
   * `write` without the promise: queues `message` (or a batch's answers, as one array line) and
   * returns undefined, or returns the error when it cannot be serialized (nothing is written then).
   */
  send(message: Message | readonly ResponseMessage[], serialized?: Uint8Array): Error | undefined {
    let text: string | Uint8Array
    try {
      text = serialized ?? JSON.stringify(message)
    } catch (error) {
      return error instanceof Error ? error : new TypeError(String(error))
    }
    if (text === undefined) return new TypeError('message is not JSON-serializable')
    this.account(message)
    if (this.closed) return undefined
    if (this.options.onLine)
      this.options.onLine(
        typeof text === 'string' ? text : Buffer.from(text).toString('utf8', 0, text.length - 1),
      )
    this.batch ??= new Batch()
    const lines = this.batch.lines
    lines.push(text)
    this.heldBytes += text.length
    const full = this.heldBytes >= MAX_HELD_BYTES || lines.length >= MAX_HELD_LINES
    if (full) this.pump()
    else if (lines.length === 1 && !this.handedAtOnce && 'method' in message) this.handAtOnce()
    else this.flushSoon()
    return undefined
  }

  /**
   * A notification or request of ours that starts a batch goes out at once (a streamed chunk waits
   * for nothing); the lines after it until the next microtask go out together then.
   */
  private handAtOnce(): void {
    this.handedAtOnce = true
    RESOLVED.then(this.endAtOnce)
    this.pump()
  }

  private readonly endAtOnce = (): void => {
    this.handedAtOnce = false
  }

  drain(): Promise<void> {
    this.pump()
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  end(): void {
    this.ending = true
    this.pump()
  }

  override dispose(): void {
    this.output.off('drain', this.onStreamDrain)
    // The error and close listeners stay: a late EPIPE must never become an uncaught exception.
    super.dispose()
  }

  private account(message: Message | readonly ResponseMessage[]): void {
    const ledger = this.options.ledger
    if (!ledger) return
    if (Array.isArray(message)) {
      for (const answer of message) this.account(answer)
      return
    }
    const { id, method } = message as { id?: unknown; method?: unknown }
    if (isWireId(id) && method === undefined) ledger.releaseInbound(id)
  }

  /**
   * Hands the batch over in a microtask: every line written by the running code, and by the
   * microtasks queued before that one (e.g. the other answers a promise settling together
   * released), goes out in the same write, and no line waits for a turn of the event loop.
   */
  private flushSoon(): void {
    if (this.flushQueued) return
    this.flushQueued = true
    RESOLVED.then(this.flushQueuedBatch)
  }

  private readonly flushQueuedBatch = (): void => {
    this.flushQueued = false
    this.pump()
  }

  private pump(): void {
    while (!this.blocked && !this.closed && this.batch) {
      const batch = this.batch
      this.batch = undefined
      this.heldBytes = 0
      for (const text of batchPieces(batch.lines)) {
        this.unflushed++
        let accepted: boolean
        try {
          accepted = this.output.write(text, this.onFlushed)
        } catch (error) {
          this.onStreamError(error as Error)
          accepted = true
        }
        if (!accepted) this.blocked = true
      }
      batch.resolve()
    }
    if (this.ending && !this.closed && !this.batch && !this.output.writableEnded) {
      this.output.end()
    }
  }

  private isIdle(): boolean {
    return this.closed || (!this.batch && this.unflushed === 0)
  }

  private readonly onFlushed = (): void => {
    this.unflushed--
    this.settleDrainWaiters()
  }

  private settleDrainWaiters(): void {
    if (!this.isIdle() || this.drainWaiters.length === 0) return
    const waiters = this.drainWaiters
    this.drainWaiters = []
    for (const resolve of waiters) resolve()
  }

  private readonly onStreamDrain = (): void => {
    this.blocked = false
    this.pump()
  }

  private readonly onStreamError = (error: Error): void => {
    if (this.closed) return
    this.fireError(error)
    this.shutDown()
  }

  private readonly onStreamClose = (): void => {
    if (this.closed) return
    this.shutDown()
  }

  private shutDown(): void {
    this.closed = true
    this.batch?.resolve()
    this.batch = undefined
    this.fireClose()
    this.settleDrainWaiters()
  }
}
