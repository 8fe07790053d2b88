import { validateAcpMessage } from './acp-schema.js'

export type Direction = 'in' | 'out'

export interface WireEntry {
  /** `in`: client to agent; `out`: agent to client. */
  readonly dir: Direction
  readonly line: string
  readonly message: unknown
}

/**
 * Watches both directions of an ACP wire and checks every line the agent writes: exactly one JSON
 * message, valid against the official ACP schema (responses against the method of the request
 * they answer). `problems` collects every violation; a test asserts it stays empty.
 */
export class WireAudit {
  readonly entries: WireEntry[] = []
  readonly problems: string[] = []
  private readonly requestsFromClient = new Map<string, string>()

  record(dir: Direction, line: string): void {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      if (dir === 'out') this.problems.push(`agent wrote a line that is not JSON: ${line.slice(0, 200)}`)
      this.entries.push({ dir, line, message: undefined })
      return
    }
    this.entries.push({ dir, line, message })
    const m = message as Record<string, unknown>
    if (dir === 'in') {
      if (typeof m?.method === 'string' && Object.hasOwn(m, 'id'))
        this.requestsFromClient.set(JSON.stringify(m.id), m.method)
      return
    }
    const method =
      typeof m?.method === 'string' ? undefined : this.requestsFromClient.get(JSON.stringify(m?.id))
    const errors = validateAcpMessage(message, method !== undefined ? { method } : {})
    for (const error of errors) this.problems.push(`${error} in ${line.slice(0, 300)}`)
  }

  /** Messages the agent wrote, parsed. */
  outgoing(): Record<string, unknown>[] {
    return this.entries.filter((e) => e.dir === 'out').map((e) => e.message as Record<string, unknown>)
  }
}

/** Splits a byte stream into lines on `\n` bytes, decoding each line as UTF-8. */
export class LineSplitter {
  private pending: Buffer[] = []

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      this.pending.push(chunk.subarray(start, i))
      const line = Buffer.concat(this.pending).toString('utf8')
      this.pending = []
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line)
      start = i + 1
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start))
  }

  /** Bytes after the last newline (a line the writer never finished). */
  rest(): string {
    return Buffer.concat(this.pending).toString('utf8')
  }
}
