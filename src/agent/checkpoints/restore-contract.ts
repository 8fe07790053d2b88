import type { Session } from '../../session/index.js'

/** Restore the working tree to how the session's built-in file tools left it at a closed boundary. */
export interface FileRestoreRequest {
  readonly session: Session
  /** The closed boundary (a turn/end seq, or 0 for before the first turn) to restore the files to. */
  readonly boundary: number
  /** Report what a restore would do, change nothing. */
  readonly dryRun: boolean
  /** Overwrite files changed since by someone else (default false: they are reported and left). */
  readonly force?: boolean
}

export interface FileRestoreReport {
  /** Absolute paths written back to their content at the boundary. */
  readonly restored: readonly string[]
  /** Absolute paths of files created after the boundary, removed. */
  readonly removed: readonly string[]
  /** Paths left as they are, and why (changed since by someone else; unreadable; outside the workspace). */
  readonly conflicts: readonly { readonly path: string; readonly reason: string }[]
  /** run_command or MCP tools ran after the boundary: what they changed is not restored. */
  readonly commandsRan: boolean
  /**
   * Lines the changes undone had added and removed: over the files restored and removed, the line
   * diff from each file's content at the boundary to its content now (a removed file's lines all
   * count as added). Files left (conflicts) do not count.
   */
  readonly insertions: number
  readonly deletions: number
}

export type RestoreFiles = (request: FileRestoreRequest) => Promise<FileRestoreReport>
