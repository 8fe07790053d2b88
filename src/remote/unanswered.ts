/**
 * A connection's requests from the client that are not answered yet, by id (as JSON), with their
 * size: what the server holds for a client that sends faster than it is answered.
 *
 * A request whose id is already pending is not counted again (the agent refuses a duplicate id
 * with an error whose id is null). An answer is recognised on our output line without parsing it
 * whole: our writer serializes a response as `{"jsonrpc":"2.0","id":…,"result"|"error":…}`; a
 * line that starts like a message with an id but not in that shape is parsed (rare: our own
 * requests to the client).
 */
export class Unanswered {
  private readonly sizes = new Map<string, number>()
  bytes = 0

  add(id: string, size: number): void {
    if (this.sizes.has(id)) return
    this.sizes.set(id, size)
    this.bytes += size
  }

  /** `line` is one message of ours: when it answers a pending request, that request is released. */
  answered(line: string): void {
    if (!line.startsWith(WITH_ID)) return
    const id = RESPONSE.exec(line)?.[1] ?? responseIdOf(line)
    if (id === undefined) return
    const size = this.sizes.get(id)
    if (size === undefined) return
    this.sizes.delete(id)
    this.bytes -= size
  }
}

const WITH_ID = '{"jsonrpc":"2.0","id":'
/** A response as our writer serializes it; group 1 is its id as JSON. */
const RESPONSE = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+),"(?:result|error)":/

/** The id (as JSON) of a response in any other shape, else undefined. */
function responseIdOf(line: string): string | undefined {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof message !== 'object' || message === null || 'method' in message || !('id' in message))
    return undefined
  return JSON.stringify(message.id)
}
