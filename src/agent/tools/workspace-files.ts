import { mkdir, open, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { raceAbort } from '../abort.js'
import { resolveInside, resolveInsideOnDisk } from './confine.js'
import { type ToolContext, ToolFailure } from './tool.js'

/** Largest file (bytes) a tool reads from the local disk as text. */
export const MAX_TEXT_FILE_BYTES = 4 * 1024 * 1024

/** How many leading bytes are checked for NUL, the sign of a binary file. */
const BINARY_PROBE_BYTES = 8192

/**
 * The absolute path a tool may use for `requested`: confined to the session's cwd, lexically when
 * the editor does the access (it sees its own workspace), and on disk (symlinks included) otherwise.
 */
export async function workspacePath(
  requested: string,
  context: ToolContext,
  viaEditor: boolean,
): Promise<string> {
  return viaEditor ? resolveInside(context.cwd, requested) : resolveInsideOnDisk(context.cwd, requested)
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
  const viaEditor = client.readTextFile !== undefined
  const target = await workspacePath(requested, context, viaEditor)
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

/** Writes a whole text file, through the editor when it can, else on the local disk (making directories). */
export async function writeWorkspaceText(
  requested: string,
  content: string,
  context: ToolContext,
): Promise<string> {
  const { client, signal } = context
  const viaEditor = client.writeTextFile !== undefined
  const target = await workspacePath(requested, context, viaEditor)
  if (client.writeTextFile) {
    await client.writeTextFile(target, content, signal)
    return target
  }
  await raceAbort(mkdir(path.dirname(target), { recursive: true }), signal)
  await raceAbort(writeFile(target, content, { encoding: 'utf8', signal }), signal)
  return target
}

async function readLocalText(target: string, requested: string): Promise<string> {
  const handle = await open(target, 'r')
  try {
    const stat = await handle.stat()
    if (stat.isDirectory()) throw new ToolFailure(`${requested} is a directory, not a file`)
    if (stat.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolFailure(
        `${requested} is ${stat.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a tool reads; read a range of lines or search it instead`,
      )
    }
    const bytes = await handle.readFile()
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
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
