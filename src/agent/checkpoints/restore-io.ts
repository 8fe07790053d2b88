import { lstat, readFile, unlink } from 'node:fs/promises'
import path from 'node:path'
import { type AllowedRoots, resolveReal } from '../tools/files/confine.js'
import { openVerifiedDirectory } from '../tools/files/descriptor.js'
import { type LocalSnapshot, readLocalFile, replaceLocalFile } from '../tools/files/local-files.js'
import { ToolFailure } from '../tools/tool.js'
import type { ClientBridge } from '../types.js'

/** The editor's file methods, when the client offers them (open buffers follow their writes). */
export type EditorFiles = Pick<ClientBridge, 'readTextFile' | 'writeTextFile'>

/** A file as a restore finds it: its bytes (null: no file) and, read from the disk, its version. */
export interface CurrentFile {
  readonly bytes: Buffer | null
  readonly local?: LocalSnapshot
}

/**
 * `recorded` (a real path a file tool wrote) confined again like every tool's path, now: inside the
 * session's roots, no symlink leading elsewhere, a regular file with one link. Throws a
 * {@link ToolFailure} saying why not.
 */
export async function confinedAgain(roots: AllowedRoots, recorded: string): Promise<string> {
  const real = await resolveReal(roots, recorded, 'write')
  if (real !== recorded)
    throw new ToolFailure(`${recorded} now resolves to ${real} (a symbolic link): refused`)
  return real
}

/**
 * The file's current content: through the editor when it can read (unsaved buffers count), else
 * from the disk through a verified descriptor. No file on the disk reads as null.
 */
export async function readCurrent(
  target: string,
  editor: EditorFiles,
  signal: AbortSignal,
): Promise<CurrentFile> {
  const there = await lstat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
    throw error
  })
  if (there === undefined) return { bytes: null }
  if (editor.readTextFile) return { bytes: Buffer.from(await editor.readTextFile(target, signal), 'utf8') }
  const local = await readLocalFile(target, target)
  return { bytes: local.bytes, local }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** A file a restore puts back: its path, the bytes it gets, and the version the restore read. */
export interface FileWrite {
  readonly path: string
  readonly bytes: Buffer
  readonly current: CurrentFile
}

/**
 * Writes `bytes` to the file: through the editor's `fs/write_text_file` when it can and the bytes
 * are UTF-8 text, else on the disk atomically (see `replaceLocalFile`), and there only if the file
 * is still the version `current` read.
 */
export async function writeBack(
  { path: target, bytes, current }: FileWrite,
  { editor, signal }: { readonly editor: EditorFiles; readonly signal: AbortSignal },
): Promise<void> {
  const text = editor.writeTextFile ? utf8(bytes) : undefined
  if (editor.writeTextFile && text !== undefined) return editor.writeTextFile(target, text, signal)
  const expected = current.local ?? (current.bytes === null ? null : undefined)
  await replaceLocalFile({ target, requested: target, content: bytes, expected }, signal)
}

/**
 * Removes the file from the disk (ACP has no method to delete through the editor), by its name in
 * its verified directory, refusing anything that is not a regular file, and a file whose bytes
 * are no longer `expected` (what the restore examined).
 */
export async function removeFile(target: string, expected: Buffer | null): Promise<void> {
  const dir = await openVerifiedDirectory(path.dirname(target), target)
  try {
    const entry = dir.child(path.basename(target))
    const info = await lstat(entry)
    if (!info.isFile()) throw new ToolFailure(`${target} is not a regular file: not removed`)
    if (expected !== null && !(await readFile(entry)).equals(expected)) {
      throw new ToolFailure(`${target} changed while it was being restored: not removed`)
    }
    await unlink(entry)
    await dir.handle.sync().catch(() => {})
  } finally {
    await dir.handle.close()
  }
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}
