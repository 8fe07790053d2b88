import {
  close as closeDescriptor,
  closeSync,
  constants,
  watch as fsWatch,
  fsync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { type FileHandle, link, lstat, open as openFile, readdir, rename, unlink } from 'node:fs/promises'
import { DescriptorFile } from './descriptor-file.js'
import type { FileStat, OpenFile } from './open-file.js'
import { fileStat, openDescriptor, ReadOnlyFile } from './read-only-file.js'

/** O_NOFOLLOW: a symlink is never followed. O_NONBLOCK: opening a FIFO does not wait for a writer. */
const OPEN_FLAGS = {
  r: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  'r+': constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  wx: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
} as const

export type { FileStat, OpenFile } from './open-file.js'

/** Thrown by `open` for anything but a regular file: a symlink, directory, FIFO, socket or device. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError'
  readonly code = 'ENOTREG'
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`)
  }
}

/** What a non-regular entry is, for messages. */
export function entryKind(stats: {
  isSymbolicLink(): boolean
  isDirectory(): boolean
  isFIFO(): boolean
  isSocket(): boolean
}): string {
  if (stats.isSymbolicLink()) return 'a symbolic link'
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a FIFO'
  if (stats.isSocket()) return 'a socket'
  return 'a device'
}

/**
 * The file operations the JSONL backend performs, injectable so tests can fail the Nth write,
 * fsync or rename. Errors are Node errno errors (`code`, `syscall`, `path`).
 */
export interface FileSystem {
  /**
   * `flags` as in `fs.open` (`r`, `r+`, `wx`); `mode` applies to created files. Never follows a
   * symlink and never blocks on a FIFO: anything but a regular file is refused with
   * {@link NotRegularFileError} (a symlink's own open fails with ELOOP, reported the same way).
   */
  open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): Promise<OpenFile>
  rename(from: string, to: string): Promise<void>
  /** A second name `to` for the file `from` (a hard link); fails with EEXIST when `to` exists. */
  link(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
  /** fsyncs a directory, making renames and unlinks inside it durable. */
  syncDir(path: string): Promise<void>
  readdir(path: string): Promise<string[]>
  /** The entry itself (lstat: a symlink is not followed). */
  stat(path: string): Promise<FileStat>
  /**
   * Watches a directory: `onChange(name)` for each entry created, written, renamed or removed
   * (`undefined` when the name is unknown), `onError` when the watch broke and reports nothing
   * more. Optional: without it (or when it throws) callers look at the files themselves.
   */
  watch?(dir: string, onChange: (name: string | undefined) => void, onError: () => void): DirectoryWatch
  /**
   * The same operations done synchronously, for a short run of them on the main thread (a rewind's
   * opens, link and rename): each is some µs of kernel work, where a thread-pool round trip costs
   * milliseconds on a busy machine. Files opened here still fdatasync in the thread pool. Optional:
   * without it, callers use the asynchronous ones.
   */
  readonly now?: SyncFileSystem | undefined
}

/** The synchronous twins of {@link FileSystem}'s metadata operations (see {@link FileSystem.now}). */
export interface SyncFileSystem {
  open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): OpenFile
  rename(from: string, to: string): void
  link(from: string, to: string): void
  unlink(path: string): void
  stat(path: string): FileStat
}

export interface DirectoryWatch {
  close(): void
}

/** What an `open` that failed on a symlink or directory is: {@link NotRegularFileError}. */
function openError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ELOOP') return new NotRegularFileError(path, 'a symbolic link')
  if (code === 'EISDIR') return new NotRegularFileError(path, 'a directory')
  return error
}

/** @internal Exported for the bench, which times its calls. */
export class NodeOpenFile implements OpenFile {
  constructor(
    private readonly handle: FileHandle,
    readonly opened: FileStat,
  ) {}
  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.write(buffer, offset, length, position)).bytesWritten
  }
  async writev(buffers: readonly Uint8Array[], position: number): Promise<number> {
    return (await this.handle.writev(buffers, position)).bytesWritten
  }
  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.read(buffer, offset, length, position)).bytesRead
  }
  writeSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    return writeSync(this.handle.fd, buffer, offset, length, position)
  }
  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    return readSync(this.handle.fd, buffer, offset, length, position)
  }
  datasync(): Promise<void> {
    return this.handle.datasync()
  }
  truncate(length: number): Promise<void> {
    return this.handle.truncate(length)
  }
  async stat(): Promise<FileStat> {
    return fileStat(await this.handle.stat())
  }
  close(): Promise<void> {
    return this.handle.close()
  }
}

/** The real file system (node:fs/promises; files opened for reading on their bare descriptor). */
export const nodeFileSystem: FileSystem = {
  async open(path, flags, mode = 0o600) {
    if (flags === 'r') {
      let opened: { fd: number; stats: Stats }
      try {
        opened = await openDescriptor(path, OPEN_FLAGS.r)
      } catch (error) {
        throw openError(path, error)
      }
      const { fd, stats } = opened
      if (!stats.isFile()) {
        await new Promise<void>((resolve) => closeDescriptor(fd, () => resolve()))
        throw new NotRegularFileError(path, entryKind(stats))
      }
      return new ReadOnlyFile(fd, fileStat(stats))
    }
    let handle: FileHandle
    try {
      handle = await openFile(path, OPEN_FLAGS[flags], mode)
    } catch (error) {
      throw openError(path, error)
    }
    let opened: FileStat
    try {
      const s = await handle.stat()
      if (!s.isFile()) throw new NotRegularFileError(path, entryKind(s))
      opened = fileStat(s)
    } catch (error) {
      await handle.close().catch(() => {})
      throw error
    }
    return new NodeOpenFile(handle, opened)
  },
  rename,
  link,
  unlink,
  async syncDir(path) {
    // Opened and closed on the main thread (µs): only the fsync is a thread-pool round trip.
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())))
    } finally {
      closeSync(fd)
    }
  },
  readdir: (path) => readdir(path),
  async stat(path) {
    return fileStat(await lstat(path))
  },
  watch(dir, onChange, onError) {
    // persistent: false, so a watch never keeps the process alive.
    const watcher = fsWatch(dir, { persistent: false }, (_type, name) => onChange(name ?? undefined))
    watcher.on('error', () => {
      watcher.close()
      onError()
    })
    return { close: () => watcher.close() }
  },
  now: {
    open(path, flags, mode = 0o600) {
      try {
        return DescriptorFile.open(
          path,
          OPEN_FLAGS[flags],
          mode,
          (stats) => new NotRegularFileError(path, entryKind(stats)),
        )
      } catch (error) {
        throw openError(path, error)
      }
    },
    rename: renameSync,
    link: linkSync,
    unlink: unlinkSync,
    stat: (path) => fileStat(lstatSync(path)),
  },
}
