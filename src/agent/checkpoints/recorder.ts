import type { Session } from '../../session/index.js'
import type { FileCheckpoints } from '../tools/file-recording.js'
import { blobNameOf, type CheckpointBlobs } from './blob-port.js'
import {
  ABSENT,
  CHECKPOINT_FILE_EVENT,
  type FileCheckpoint,
  INLINE_BEFORE_BYTES,
} from './checkpoint-event.js'

// The port the file tools record through is theirs (tools/file-recording.ts); this implements it.
export type { FileCheckpoints } from '../tools/file-recording.js'

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
