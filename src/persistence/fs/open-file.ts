// The open-file contract in its own file, so that `file-system.ts` and its implementations
// (`read-only-file.ts`) do not import each other.

/** An open file. Positions are explicit: the writer tracks offsets itself and never relies on O_APPEND. */
export interface OpenFile {
  /** The file's stat taken when it was opened, where `open` took one (saves a `stat` right after). */
  readonly opened?: FileStat
  /** Writes up to `length` bytes at `position`; resolves the count actually written (may be short). */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>
  /**
   * Writes `buffers` one after another from `position` in one write (`pwritev`); resolves the count
   * actually written (may be short: then a prefix of them, in order).
   */
  writev(buffers: readonly Uint8Array[], position: number): Promise<number>
  /** Reads up to `length` bytes at `position`; resolves the count read (0 at end of file). */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>
  /** `write`, synchronously (it blocks the event loop: for bounded slices only). */
  writeSync(buffer: Uint8Array, offset: number, length: number, position: number): number
  /** `read`, synchronously (it blocks the event loop: for bounded slices only). */
  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number
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
  /** A regular file (not a directory, symlink, FIFO, socket or device). */
  readonly isFile: boolean
}
