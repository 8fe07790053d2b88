import type { Message, MessageStrategy, NotificationMessage } from 'vscode-jsonrpc'

/**
 * Dispatch in batches. vscode-jsonrpc takes one message off its queue per event-loop turn, so 64
 * requests read in one chunk cost 64 loop iterations (each polling for I/O) before the last one
 * starts. Instead the reader may hand the connection one carrier per chunk holding that chunk's
 * messages in order, and `unpackBatches` (the connection's `messageStrategy`) hands them to
 * vscode-jsonrpc's own `handleMessage` within about one loop iteration: the first at once, each
 * next one in its own `setImmediate`, all scheduled together, so they run back to back in one
 * check phase.
 *
 * What stays as with one message per turn: handlers run concurrently (nothing waits for a handler
 * to finish); messages start in wire order; and every microtask the previous message queued has
 * run before the next one starts (Node drains microtasks between immediates), so a pipelined
 * `session/new` + `session/prompt` still finds its session when creating it needs no I/O.
 *
 * A carrier is marked by a symbol, which no JSON text can produce: a peer that sends a
 * notification with the carrier's method name gets an ordinary unknown notification.
 */
const CARRIED = Symbol('ndjson.batch')

/** The method name a carrier shows to vscode-jsonrpc's queue (never written to the wire). */
export const BATCH_METHOD = '$/ndjson/batch'

type Carrier = NotificationMessage & { readonly [CARRIED]: readonly Message[] }

/** Wraps several messages, in order, into one message for the connection's queue. */
export function carry(messages: readonly Message[]): Message {
  const carrier = { jsonrpc: '2.0', method: BATCH_METHOD, [CARRIED]: messages }
  return carrier as Carrier
}

/** The messages a carrier holds, or undefined for any other message. */
export function carried(message: Message): readonly Message[] | undefined {
  return (message as Partial<Carrier>)[CARRIED]
}

/** How many messages `message` stands for: a carrier's count, else 1. */
export function batchSize(message: Message): number {
  return carried(message)?.length ?? 1
}

/**
 * The `messageStrategy` that pairs with a batching reader: a carrier's first message goes to
 * `next` at once, each later one in its own `setImmediate` (scheduled now, in order); any other
 * message goes to `next` as is. `before` sees each message just before it is handed over.
 */
export function unpackBatches(before: (message: Message) => void = () => {}): MessageStrategy {
  const handOver = (next: (message: Message) => void, message: Message) => {
    before(message)
    next(message)
  }
  return {
    handleMessage(message, next) {
      const messages = carried(message)
      if (!messages) return handOver(next, message)
      for (const [i, inner] of messages.entries()) {
        if (i === 0) handOver(next, inner)
        else setImmediate(handOver, next, inner)
      }
    },
  }
}
