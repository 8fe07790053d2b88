/** One change a file tool is about to make. */
export interface FileChange {
  readonly turn: number
  readonly callId: string
  /** The file's real path (what the confinement check resolved). */
  readonly path: string
  /** Its bytes right before the change; null: there is no such file yet. */
  readonly before: Uint8Array | null
  /** The bytes the change writes; null: it removes the file (a restore does). */
  readonly after: Uint8Array | null
}

/**
 * Records the changes the built-in file tools make to one session's files, so that a rewind can put
 * them back. Handed to each tool call in its context; the checkpoints (agent/checkpoints/) implement
 * it, the tools know nothing of them.
 */
export interface FileCheckpoints {
  /**
   * Makes `change.before` durable (inline in the event when small, else a blob), then runs `write`,
   * then appends the `checkpoint:file` event naming it. When keeping the content fails, nothing is
   * written and the call fails; when `write` fails, no event is appended (a blob nobody names is
   * collected later). A crash between the write and the event loses only the record, never a file.
   */
  record<T>(change: FileChange, write: () => Promise<T>): Promise<T>
}
