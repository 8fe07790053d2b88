import { constants, existsSync } from 'node:fs'
import { type FileHandle, mkdir, open, readlink, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { ToolFailure } from '../tool.js'

/**
 * Opening files on the local disk so that a directory swapped for a symlink while we work cannot
 * send the I/O outside the allowed roots. `O_NOFOLLOW` guards only a path's last component, so every
 * descriptor is checked after it is opened: its real path (Linux: the kernel's `/proc/self/fd/N`;
 * elsewhere, the device and inode of the path re-resolved) must be the real path the confinement
 * check accepted. Names inside a verified directory are opened through `/proc/self/fd/N/name`
 * where the system has it, which reaches that very directory whatever happens to its path since.
 */

/** Where the kernel shows a descriptor's path (Linux procfs). */
const FD_LINKS = '/proc/self/fd'

/** An open descriptor whose real path was checked against the path it was opened for. */
export interface Verified {
  readonly handle: FileHandle
  /** The real path it was opened for. */
  readonly realPath: string
  /** How to name a child of this (directory) descriptor for path-based calls (open, rename, mkdir). */
  child(name: string): string
}

/** How {@link openVerified} opens: the open flags, inside which verified directory, with which mode. */
export interface VerifiedOpen {
  readonly flags: number
  /** Opens the real path's base name inside this already verified directory. */
  readonly at?: Verified
  /** The mode of a file the open creates. */
  readonly mode?: number
}

/**
 * Opens `realPath` (a real path a confinement check accepted) with `flags` plus `O_NOFOLLOW`, and
 * checks the descriptor is that file; otherwise closes it and refuses (`requested` names the path in
 * the message).
 */
export async function openVerified(
  realPath: string,
  requested: string,
  { flags, at, mode }: VerifiedOpen,
): Promise<Verified> {
  const opened = at ? at.child(path.basename(realPath)) : realPath
  const handle = await open(opened, flags | constants.O_NOFOLLOW, mode).catch(
    (error: NodeJS.ErrnoException) => {
      // A symlink where the check saw none: something was swapped in meanwhile.
      throw error.code === 'ELOOP' ? moved(requested) : error
    },
  )
  try {
    await assertDescriptorIs(handle, realPath, requested)
  } catch (error) {
    await handle.close()
    throw error
  }
  return { handle, realPath, child: (name) => childPath(handle, realPath, name) }
}

/**
 * The directory `realDir` opened and verified, creating the missing ones below its nearest
 * existing ancestor one at a time, each inside the verified one above it (a real path, so no
 * component is a symlink).
 */
export async function openVerifiedDirectory(realDir: string, requested: string): Promise<Verified> {
  const missing: string[] = []
  let probe = realDir
  while (!(await exists(probe))) {
    const parent = path.dirname(probe)
    if (parent === probe) break
    missing.unshift(path.basename(probe))
    probe = parent
  }
  const flags = constants.O_RDONLY | constants.O_DIRECTORY
  let dir = await openVerified(probe, requested, { flags })
  for (const name of missing) {
    const next = path.join(dir.realPath, name)
    try {
      await mkdir(dir.child(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error
      })
      const opened = await openVerified(next, requested, { flags, at: dir })
      await dir.handle.close()
      dir = opened
    } catch (error) {
      await dir.handle.close()
      throw error
    }
  }
  return dir
}

/** Refuses unless `handle` is the file at `realPath` (checked through the kernel where it can). */
async function assertDescriptorIs(handle: FileHandle, realPath: string, requested: string): Promise<void> {
  const shown = await descriptorPath(handle)
  if (shown !== undefined) {
    if (shown !== realPath) throw moved(requested)
    return
  }
  const [held, there] = await Promise.all([handle.stat(), statReal(realPath)])
  if (there === undefined || held.dev !== there.dev || held.ino !== there.ino) throw moved(requested)
}

/** The descriptor's path as the kernel shows it, or undefined where there is no procfs. */
async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(path.join(FD_LINKS, String(handle.fd)))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return undefined
    throw error
  }
}

/** The (device, inode) at `realPath` when it resolves to itself, that is no symlink on the way. */
async function statReal(realPath: string): Promise<{ dev: number; ino: number } | undefined> {
  try {
    if ((await realpath(realPath)) !== realPath) return undefined
    return await stat(realPath)
  } catch {
    return undefined
  }
}

let procfs: boolean | undefined

function childPath(handle: FileHandle, realPath: string, name: string): string {
  procfs ??= existsSync(FD_LINKS)
  return procfs ? path.join(FD_LINKS, String(handle.fd), name) : path.join(realPath, name)
}

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return false
    throw error
  }
}

function moved(requested: string): ToolFailure {
  return new ToolFailure(
    `${requested} changed while it was being opened (a directory on its path was moved or replaced); nothing was read or written`,
  )
}
