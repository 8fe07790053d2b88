import { constants, watch as fsWatch } from 'node:fs'
import { type FileHandle, open as openFile, readdir, rename, stat, unlink } from 'node:fs/promises'

/** An open file. Positions are explicit: the writer tracks offsets itself and never relies on O_APPEND. */
export interface OpenFile {
  /** Writes up to `length` bytes at `position`; resolves the count actually written (may be short). */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>
  /** Reads up to `length` bytes at `position`; resolves the count read (0 at end of file). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>
  /** fdatasync: data and the size are on disk when it resolves. */
  datasync(): Promise<void>
  truncate(length: number): Promise<void>
  stat(): Promise<FileStat>
  close(): Promise<void>
}

export interface FileStat {
  readonly size: number
  readonly mtimeMs: number
  readonly ino: number
}

/**
 * The file operations the JSONL backend performs, injectable so tests can fail the Nth write,
 * fsync or rename. Errors are Node errno errors (`code`, `syscall`, `path`).
 */
export interface FileSystem {
  /** `flags` as in `fs.open` (`r`, `r+`, `wx`); `mode` applies to created files. */
  open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): Promise<OpenFile>
  rename(from: string, to: string): Promise<void>
  unlink(path: string): Promise<void>
  /** fsyncs a directory, making renames and unlinks inside it durable. */
  syncDir(path: string): Promise<void>
  readdir(path: string): Promise<string[]>
  stat(path: string): Promise<FileStat>
  /**
   * Watches a directory: `onChange(name)` for each entry created, written, renamed or removed
   * (`undefined` when the name is unknown), `onError` when the watch broke and reports nothing
   * more. Optional: without it (or when it throws) callers look at the files themselves.
   */
  watch?(dir: string, onChange: (name: string | undefined) => void, onError: () => void): DirectoryWatch
}

export interface DirectoryWatch {
  close(): void
}

class NodeOpenFile implements OpenFile {
  constructor(private readonly handle: FileHandle) {}
  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.write(buffer, offset, length, position)).bytesWritten
  }
  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return (await this.handle.read(buffer, offset, length, position)).bytesRead
  }
  datasync(): Promise<void> {
    return this.handle.datasync()
  }
  truncate(length: number): Promise<void> {
    return this.handle.truncate(length)
  }
  async stat(): Promise<FileStat> {
    const s = await this.handle.stat()
    return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino }
  }
  close(): Promise<void> {
    return this.handle.close()
  }
}

/** The real file system (node:fs/promises). */
export const nodeFileSystem: FileSystem = {
  async open(path, flags, mode = 0o600) {
    return new NodeOpenFile(await openFile(path, flags, mode))
  },
  rename,
  unlink,
  async syncDir(path) {
    const handle = await openFile(path, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
  readdir: (path) => readdir(path),
  async stat(path) {
    const s = await stat(path)
    return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino }
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
}
