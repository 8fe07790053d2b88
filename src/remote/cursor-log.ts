/** How long and how much of a connection's outgoing stream is kept for a client that resumes. */
export interface Retention {
  /** The most messages kept. */
  readonly messages: number
  /** The longest a message is kept, in seconds. */
  readonly seconds: number
  /** The most bytes kept; past it the oldest messages go first. */
  readonly bytes: number
}

/** One message we sent: its cursor (1, 2, 3, ... per connection) and its JSON text. */
export interface Entry {
  readonly cursor: number
  readonly line: string
  readonly at: number
}

/**
 * The outgoing messages of one logical connection, numbered by a cursor that only grows, of which
 * the last ones (by `Retention`) are kept. A listener sees each message as it is appended.
 *
 * Contract of `after(cursor)`: every kept message with a greater cursor, in order, when all of
 * them are still kept (`cursor` is at least the oldest kept cursor minus one, and at most the
 * last cursor handed out); else undefined: the caller must not pretend the stream goes on.
 */
export class CursorLog {
  private entries: Entry[] = []
  private head = 0
  private bytes = 0
  private last = 0
  private listener: ((entry: Entry) => void) | undefined

  constructor(
    private readonly retention: Retention,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cursor of the last message appended; 0 before any. */
  get lastCursor(): number {
    return this.last
  }

  append(line: string): Entry {
    const entry: Entry = { cursor: ++this.last, line, at: this.now() }
    this.entries.push(entry)
    this.bytes += line.length
    this.trim()
    this.listener?.(entry)
    return entry
  }

  after(cursor: number): Entry[] | undefined {
    this.trim()
    if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > this.last) return undefined
    const oldest = this.entries[this.head]?.cursor ?? this.last + 1
    if (cursor < oldest - 1) return undefined
    return this.entries.slice(this.head + (cursor - (oldest - 1)))
  }

  /** Sets the one listener of appended messages (undefined: none). */
  listen(listener: ((entry: Entry) => void) | undefined): void {
    this.listener = listener
  }

  private trim(): void {
    const oldestKept = this.now() - this.retention.seconds * 1000
    while (this.head < this.entries.length) {
      const first = this.entries[this.head] as Entry
      const kept = this.entries.length - this.head
      if (kept <= this.retention.messages && this.bytes <= this.retention.bytes && first.at >= oldestKept)
        break
      this.bytes -= first.line.length
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
  }
}
