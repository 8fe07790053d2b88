import { randomBytes } from 'node:crypto'
import { type BigIntStats, constants } from 'node:fs'
import { lstat, rename, unlink } from 'node:fs/promises'
import path from 'node:path'
import { AbortedError } from '../../../lib/abort.js'
import { ToolFailure } from '../tool.js'
import { openVerified, openVerifiedDirectory, type Verified } from './descriptor.js'

/** Largest file (bytes) a tool reads from the local disk as text. */
export const MAX_TEXT_FILE_BYTES = 4 * 1024 * 1024

/** How many leading bytes are checked for NUL, the sign of a binary file. */
const BINARY_PROBE_BYTES = 8192

/** A local file as it was read: its bytes and what identifies that version of it. */
export interface LocalSnapshot {
  readonly bytes: Buffer
  readonly dev: bigint
  readonly ino: bigint
  readonly mtimeNs: bigint
}

/**
 * A local text file's bytes, read through a descriptor verified to be `target` (see
 * descriptor.ts): directories, special files, binary files and files over
 * {@link MAX_TEXT_FILE_BYTES} are refused with a message instead of their bytes.
 */
export async function readLocalFile(target: string, requested: string): Promise<LocalSnapshot> {
  // O_NONBLOCK: opening a FIFO does not wait for a writer; it is refused below as not a file.
  const file = await openVerified(target, requested, { flags: constants.O_RDONLY | constants.O_NONBLOCK })
  try {
    const info = await file.handle.stat({ bigint: true })
    if (info.isDirectory()) throw new ToolFailure(`${requested} is a directory, not a file`)
    if (!info.isFile()) throw new ToolFailure(`${requested} is not a regular file`)
    if (info.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolFailure(
        `${requested} is ${info.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} a tool reads; read a range of lines or search it instead`,
      )
    }
    const bytes = await file.handle.readFile()
    if (looksBinary(bytes)) {
      throw new ToolFailure(`${requested} is a binary file (${bytes.length} bytes); its bytes are not shown`)
    }
    return { bytes, dev: info.dev, ino: info.ino, mtimeNs: info.mtimeNs }
  } finally {
    await file.handle.close()
  }
}

/** Whether a buffer looks binary (a NUL among its first bytes). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

/**
 * Replaces (or creates) the local file `target` with `content` (text, written as UTF-8, or bytes), atomically: a temporary file in the
 * same verified directory is written, synced, given the old file's mode (and owner, where we may)
 * and renamed over it, so a reader sees the old file or the new one, never a part. With `expected`
 * (the version the change was made from; `null`: the file did not exist), the file must still be
 * that version right before the rename, else nothing is written and the model is told to read it
 * again. Missing directories are created inside verified ones.
 */
export async function replaceLocalFile(replace: FileReplace, signal: AbortSignal): Promise<void> {
  const { requested } = replace
  try {
    await replaceVerified(replace, signal)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (error instanceof ToolFailure || error instanceof AbortedError || typeof code !== 'string') throw error
    // The paths of a failed call name descriptors (/proc/self/fd/N/...): say what failed instead.
    throw new ToolFailure(`could not write ${requested} (${code}); nothing was changed`)
  }
}

/** A replace of a local file (see {@link replaceLocalFile}). */
export interface FileReplace {
  /** The file's real path (a confinement check accepted it). */
  readonly target: string
  /** The path as the model gave it, for messages. */
  readonly requested: string
  /** Text (written as UTF-8) or bytes. */
  readonly content: string | Uint8Array
  /** The version the change was made from (`null`: no file; absent: not checked). */
  readonly expected?: LocalSnapshot | null | undefined
}

/** A name in a verified directory, and the path the model gave for messages. */
interface DirEntry {
  readonly dir: Verified
  readonly name: string
  readonly requested: string
}

async function replaceVerified(
  { target, requested, content, expected }: FileReplace,
  signal: AbortSignal,
): Promise<void> {
  const dir = await openVerifiedDirectory(path.dirname(target), requested)
  try {
    const name = path.basename(target)
    const current = await openCurrent(dir, target, requested)
    try {
      const info = current && (await current.handle.stat({ bigint: true }))
      if (info && !info.isFile()) throw new ToolFailure(`${requested} is not a regular file: refused`)
      if (info && info.nlink > 1n) {
        throw new ToolFailure(
          `${requested} has ${info.nlink} hard links, which may lie outside the working directory: refused`,
        )
      }
      if (expected !== undefined) await assertUnchanged(expected, current, requested)
      const temp = `.${name}.${randomBytes(6).toString('hex')}.dsh-tmp`
      await writeTemp({ dir, name: temp, requested }, content, info)
      try {
        if (signal.aborted) throw new AbortedError('the write was cancelled')
        if (expected !== undefined) await assertStill({ dir, name, requested }, current, info)
        await rename(dir.child(temp), dir.child(name))
      } catch (error) {
        await unlink(dir.child(temp)).catch(() => {})
        throw error
      }
      await dir.handle.sync().catch(() => {})
    } finally {
      await current?.handle.close()
    }
  } finally {
    await dir.handle.close()
  }
}

async function openCurrent(dir: Verified, target: string, requested: string): Promise<Verified | undefined> {
  try {
    return await openVerified(target, requested, {
      flags: constants.O_RDONLY | constants.O_NONBLOCK,
      at: dir,
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

async function writeTemp(
  { dir, name: temp, requested }: DirEntry,
  content: string | Uint8Array,
  old: BigIntStats | undefined,
): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL
  // An existing file's content never sits in a file more open than the old one: 0600 until chmod.
  const file = await openVerified(path.join(dir.realPath, temp), requested, {
    flags,
    at: dir,
    mode: old ? 0o600 : 0o666,
  })
  try {
    await file.handle.writeFile(content, 'utf8')
    if (old) {
      await file.handle.chmod(Number(old.mode & 0o7777n))
      if (old.uid !== BigInt(process.getuid?.() ?? -1) || old.gid !== BigInt(process.getgid?.() ?? -1)) {
        await file.handle.chown(Number(old.uid), Number(old.gid)).catch(() => {})
      }
    }
    await file.handle.sync()
  } catch (error) {
    await file.handle.close()
    await unlink(dir.child(temp)).catch(() => {})
    throw error
  }
  await file.handle.close()
}

/** Refuses unless `current` is the version `expected` describes (or both say: no file). */
async function assertUnchanged(
  expected: LocalSnapshot | null,
  current: Verified | undefined,
  requested: string,
): Promise<void> {
  if (expected === null || current === undefined) {
    if (expected === null && current === undefined) return
    throw changed(requested)
  }
  const info = await current.handle.stat({ bigint: true })
  const same =
    info.dev === expected.dev &&
    info.ino === expected.ino &&
    info.mtimeNs === expected.mtimeNs &&
    info.size === BigInt(expected.bytes.length)
  if (!same || !(await current.handle.readFile()).equals(expected.bytes)) throw changed(requested)
}

/** Right before the rename: the name still holds the file compared (unmodified since), or still none. */
async function assertStill(
  { dir, name, requested }: DirEntry,
  current: Verified | undefined,
  compared: BigIntStats | undefined,
): Promise<void> {
  const there = await lstat(dir.child(name), { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (current === undefined || compared === undefined) {
    if (there !== undefined) throw changed(requested)
    return
  }
  const now = await current.handle.stat({ bigint: true })
  const same =
    there !== undefined &&
    there.ino === compared.ino &&
    there.dev === compared.dev &&
    now.size === compared.size &&
    now.mtimeNs === compared.mtimeNs
  if (!same) throw changed(requested)
}

function changed(requested: string): ToolFailure {
  return new ToolFailure(`${requested} changed since it was read; read it again; nothing was written`)
}
