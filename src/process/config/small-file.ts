import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs'

/** The largest configuration, credentials or trust file read (1 MiB): a bigger one is refused. */
export const MAX_USER_FILE_BYTES = 1024 * 1024

/** What reading a small file gave: its text, nothing (absent), or why it was not read. */
export type SmallFileRead =
  | { readonly state: 'absent' }
  | { readonly state: 'read'; readonly text: string; readonly mode: number }
  | { readonly state: 'refused'; readonly reason: string }

/**
 * Reads `path` when it is a regular file of at most `maxBytes`, never blocking: a FIFO, a socket or
 * a device (`/dev/zero`) is refused before it is opened, the file is opened non-blocking and checked
 * again once open (the same file, still regular), and no more than `maxBytes + 1` bytes are read, so
 * neither a file that grows nor one replaced meanwhile can hold the caller or fill its memory.
 * A symbolic link is followed (a dotfiles manager links these files) to what it names.
 */
export function readSmallFile(path: string, maxBytes: number = MAX_USER_FILE_BYTES): SmallFileRead {
  let before: Stats
  try {
    before = statSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' }
    return { state: 'refused', reason: `cannot be read (${code ?? (error as Error).message})` }
  }
  const kind = notRegular(before)
  if (kind !== undefined) return { state: 'refused', reason: `is ${kind}, not a regular file: not read` }
  if (before.size > maxBytes) return { state: 'refused', reason: tooBig(before.size, maxBytes) }
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { state: 'absent' }
    return { state: 'refused', reason: `cannot be read (${code ?? (error as Error).message})` }
  }
  try {
    const opened = fstatSync(fd)
    if (!opened.isFile() || opened.ino !== before.ino || opened.dev !== before.dev)
      return { state: 'refused', reason: 'was replaced while it was being opened: not read' }
    const buffer = Buffer.alloc(Math.min(opened.size, maxBytes) + 1)
    let filled = 0
    while (filled < buffer.length) {
      const got = readSync(fd, buffer, filled, buffer.length - filled, filled)
      if (got === 0) break
      filled += got
    }
    if (filled > maxBytes) return { state: 'refused', reason: tooBig(undefined, maxBytes) }
    return { state: 'read', text: buffer.subarray(0, filled).toString('utf8'), mode: opened.mode }
  } catch (error) {
    return { state: 'refused', reason: `cannot be read (${(error as NodeJS.ErrnoException).code})` }
  } finally {
    closeSync(fd)
  }
}

function notRegular(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined
  if (stats.isFIFO()) return 'a named pipe (FIFO)'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  if (stats.isSocket()) return 'a socket'
  if (stats.isDirectory()) return 'a directory'
  return 'not a file'
}

/** `size`: the file's, when known (it grew while read otherwise). */
function tooBig(size: number | undefined, maxBytes: number): string {
  return `is larger than the limit of ${maxBytes} bytes${size === undefined ? '' : ` (${size} bytes)`}: not read`
}
