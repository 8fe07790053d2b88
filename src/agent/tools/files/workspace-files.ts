import { constants } from 'node:fs'
import { mkdir, open, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { raceAbort } from '../../../lib/abort.js'
import { type ToolContext, ToolFailure } from '../tool.js'
import { type Access, allowedRoots, resolveReal } from './confine.js'

/** Largest file (bytes) a tool reads from the local disk as text. */
export const MAX_TEXT_FILE_BYTES = 4 * 1024 * 1024

/** How many leading bytes are checked for NUL, the sign of a binary file. */
const BINARY_PROBE_BYTES = 8192

/**
 * The real path a tool may use for `requested`, whoever does the I/O (the editor or the local
 * disk): confined to the session's allowed roots with symlinks resolved on our side, and for a
 * write never a file with several hard links or that is not regular (see `resolveReal`).
 */
export function workspacePath(requested: string, context: ToolContext, access: Access): Promise<string> {
  return resolveReal(allowedRoots(context), requested, access)
}

/**
 * A text file's content: through the editor (`fs/read_text_file`, so unsaved buffers count) when the
 * client can, else from the local disk, where binary and oversized files are refused with a clear
 * message instead of their bytes.
 */
export async function readWorkspaceText(
  requested: string,
  context: ToolContext,
): Promise<{ path: string; text: string }> {
  const { client, signal } = context
  const target = await workspacePath(requested, context, 'read')
  if (client.readTextFile) return { path: target, text: await client.readTextFile(target, signal) }
  return { path: target, text: await raceAbort(readLocalText(target, requested), signal) }
}

/** The current text of a file, or null when it does not exist yet. */
export async function readExistingText(requested: string, context: ToolContext): Promise<string | null> {
  try {
    return (await readWorkspaceText(requested, context)).text
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    if (context.client.readTextFile && !(error instanceof ToolFailure)) return null
    throw error
  }
}

/**
 * Writes a whole text file, through the editor when it can, else on the local disk (making
 * directories; `O_NOFOLLOW`, so a symlink planted after the check is not followed).
 */
export async function writeWorkspaceText(
  requested: string,
  content: string,
  context: ToolContext,
): Promise<string> {
  const { client, signal } = context
  const target = await workspacePath(requested, context, 'write')
  if (client.writeTextFile) {
    await client.writeTextFile(target, content, signal)
    return target
  }
  await raceAbort(mkdir(path.dirname(target), { recursive: true }), signal)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW
  await raceAbort(writeFile(target, content, { encoding: 'utf8', signal, flag: flags }), signal)
  return target
}

async function readLocalText(target: string, requested: string): Promise<string> {
  // O_NONBLOCK: opening a FIFO does not wait for a writer; it is refused below as not a file.
  const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new ToolFailure(`${requested} is a directory, not a file`)
    if (!stat.isFile()) throw new ToolFailure(`${requested} is not a regular file`)
    if (stat.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolFailure(
        `${requested} is ${stat.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a tool reads; read a range of lines or search it instead`,
      )
    }
    const bytes = await handle.readFile()
    if (looksBinary(bytes)) {
      throw new ToolFailure(`${requested} is a binary file (${bytes.length} bytes); its bytes are not shown`)
    }
    return bytes.toString('utf8')
  } finally {
    await handle.close()
  }
}

/** Whether a buffer looks binary (a NUL among its first bytes). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)
}
