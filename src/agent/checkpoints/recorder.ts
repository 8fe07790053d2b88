import type { Session } from '../../session/index.js'
import { blobNameOf, type CheckpointBlobs } from './blob-port.js'
import {
  ABSENT,
  CHECKPOINT_FILE_EVENT,
  type FileCheckpoint,
  INLINE_BEFORE_BYTES,
} from './checkpoint-event.js'

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
 * them back (see restore.ts). Handed to each tool call in its context.
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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The {@link FileCheckpoints} of `session`, keeping content in `blobs`. */
export function fileCheckpoints(session: Session, blobs: CheckpointBlobs): FileCheckpoints {
  return {
    async record(change, write) {
      const kept = await keepBefore(change.before, blobs)
      const written = await write()
      const data: FileCheckpoint = {
        turn: change.turn,
        callId: change.callId,
        path: change.path,
        ...kept,
        after: change.after === null ? ABSENT : blobNameOf(change.after),
      }
      session.append({ type: CHECKPOINT_FILE_EVENT, data })
      return written
    },
  }
}

async function keepBefore(
  before: Uint8Array | null,
  blobs: CheckpointBlobs,
): Promise<Pick<FileCheckpoint, 'before' | 'beforeText'>> {
  if (before === null) return { before: ABSENT }
  const inline = before.length <= INLINE_BEFORE_BYTES ? utf8(before) : undefined
  if (inline !== undefined) return { before: blobNameOf(before), beforeText: inline }
  return { before: await blobs.put(before) }
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}
