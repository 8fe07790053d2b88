import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * A call that shows what it appends to a session itself (see {@link WritingCalls.writing}): the
 * async context of everything it runs, so that what it appends is known as its own.
 */
interface Writer {
  readonly sessionId: string
  readonly owner: object
  /** False once the call has ended (a task it left running appends as anyone else). */
  shows: boolean
}

/** The calls that show what they append themselves, known by their async context. */
export class WritingCalls {
  private readonly writer = new AsyncLocalStorage<Writer>()

  /**
   * Runs `write`, a call of `owner` that shows what it appends to `sessionId` itself: what it
   * appends (in its async context, while it runs) is known as its own (see {@link showsItself}).
   */
  async writing<T>(sessionId: string, owner: object, write: () => Promise<T>): Promise<T> {
    const writer: Writer = { sessionId, owner, shows: true }
    try {
      return await this.writer.run(writer, write)
    } finally {
      writer.shows = false
    }
  }

  /** Runs `wait`, a pause of a writing call: what is appended in it is nobody's own. */
  notWriting<T>(wait: () => Promise<T>): Promise<T> {
    return this.writer.exit(wait)
  }

  /** Whether what is appended to `sessionId` now is appended by a call of `owner` that shows it itself. */
  showsItself(sessionId: string, owner: object): boolean {
    const writer = this.writer.getStore()
    return writer?.shows === true && writer.owner === owner && writer.sessionId === sessionId
  }
}
