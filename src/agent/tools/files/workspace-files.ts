import { raceAbort } from '../../../lib/abort.js'
import type { FileChange } from '../file-recording.js'
import { type ToolContext, ToolFailure } from '../tool.js'
import { type Access, allowedRoots, resolveReal } from './confine.js'
import { type LocalSnapshot, readLocalFile, replaceLocalFile } from './local-files.js'

/**
 * The real path a tool may use for `requested`, whoever does the I/O (the editor or the local
 * disk): confined to the session's allowed roots with symlinks resolved on our side, and for a
 * write never a file with several hard links or that is not regular (see `resolveReal`). Resolved
 * again right before every read or write, so an editor is asked about the path as it is then.
 */
export function workspacePath(requested: string, context: ToolContext, access: Access): Promise<string> {
  return resolveReal(allowedRoots(context), requested, access)
}

/** A workspace file as it was read: its text and, when it came from the local disk, its version. */
export interface WorkspaceText {
  readonly path: string
  readonly text: string
  /** Absent when the editor read it (`fs/read_text_file`). */
  readonly local?: LocalSnapshot
}

/**
 * A text file's content: through the editor (`fs/read_text_file`, so unsaved buffers count) when the
 * client can, else from the local disk, where binary and oversized files are refused with a clear
 * message instead of their bytes. `strictUtf8`: a local file that is not valid UTF-8 is refused
 * (an edit written back would replace its other bytes); otherwise they read as U+FFFD.
 */
export async function readWorkspaceText(
  requested: string,
  context: ToolContext,
  strictUtf8 = false,
): Promise<WorkspaceText> {
  const { client, signal } = context
  const target = await workspacePath(requested, context, 'read')
  if (client.readTextFile) return { path: target, text: await client.readTextFile(target, signal) }
  const local = await raceAbort(readLocalFile(target, requested), signal)
  return { path: target, text: decode(local.bytes, requested, strictUtf8), local }
}

/** The current text of a file, or null when it does not exist yet. */
export async function readExistingText(
  requested: string,
  context: ToolContext,
): Promise<Omit<WorkspaceText, 'text'> & { readonly text: string | null }> {
  try {
    return await readWorkspaceText(requested, context)
  } catch (error) {
    const target = await workspacePath(requested, context, 'write')
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: target, text: null }
    if (context.client.readTextFile && !(error instanceof ToolFailure)) return { path: target, text: null }
    throw error
  }
}

/**
 * Writes a whole text file, through the editor when it can, else on the local disk: atomically,
 * through verified descriptors (see `replaceLocalFile`), and, when `read` says how the file was read
 * from the local disk (its version, or no file), only if it is still that version. With `read` and
 * the context's `checkpoints`, the content before is kept and the change recorded (a rewind can
 * put it back).
 */
export async function writeWorkspaceText(
  requested: string,
  content: string,
  context: ToolContext,
  read?: { readonly text: string | null; readonly local?: LocalSnapshot },
): Promise<string> {
  const { client, signal } = context
  const target = await workspacePath(requested, context, 'write')
  const write = async () => {
    if (client.writeTextFile) return client.writeTextFile(target, content, signal)
    const expected = read === undefined || client.readTextFile ? undefined : (read.local ?? null)
    await raceAbort(replaceLocalFile({ target, requested, content, expected }, signal), signal)
  }
  if (context.checkpoints === undefined || read === undefined) await write()
  else await context.checkpoints.record(checkpointOf(context, target, read, content), write)
  return target
}

/** The change a write makes, for the session's file checkpoints: the bytes as read, and as written. */
function checkpointOf(
  context: ToolContext,
  target: string,
  read: { readonly text: string | null; readonly local?: LocalSnapshot },
  content: string,
): FileChange {
  const before = read.local?.bytes ?? (read.text === null ? null : Buffer.from(read.text, 'utf8'))
  return {
    turn: context.turn,
    callId: context.callId,
    path: target,
    before,
    after: Buffer.from(content, 'utf8'),
  }
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function decode(bytes: Buffer, requested: string, strict: boolean): string {
  if (!strict) return bytes.toString('utf8')
  try {
    return strictDecoder.decode(bytes)
  } catch {
    throw new ToolFailure(
      `${requested} is not valid UTF-8 text (perhaps Latin-1 or another legacy encoding); ` +
        'edit_text_file changes only UTF-8 files, so nothing was changed',
    )
  }
}
