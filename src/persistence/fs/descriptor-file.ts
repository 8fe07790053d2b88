import {
  close,
  closeSync,
  fdatasync,
  fstat,
  fstatSync,
  ftruncate,
  openSync,
  read,
  readSync,
  type Stats,
  write,
  writeSync,
  writev,
} from 'node:fs'
import type { FileStat, OpenFile } from './open-file.js'
import { fileStat } from './read-only-file.js'

/**
 * A file opened synchronously, on its bare descriptor (`openSync`: some µs on the main thread,
 * where a `FileHandle`'s open is a thread-pool round trip, which costs milliseconds on a busy
 * machine). Reads and writes as an {@link OpenFile}; the calls that block (fdatasync) go to the
 * thread pool. As a `FileHandle` does, `close` happens once and waits for the calls in flight;
 * nothing is done through the descriptor after `close` began (EBADF), so a descriptor number the
 * kernel reuses is never touched by mistake.
 */
export class DescriptorFile implements OpenFile {
  private inFlight = 0
  private idle: (() => void) | undefined
  private closed: Promise<void> | undefined

  private constructor(
    private readonly fd: number,
    readonly opened: FileStat,
  ) {}

  /**
   * Opens `path` with the numeric `flags` (the caller's `O_NOFOLLOW` and the rest) and takes its
   * stat; throws `notRegular(stats)` (the descriptor closed) when it is not a regular file.
   */
  static open(
    path: string,
    flags: number,
    mode: number,
    notRegular: (stats: Stats) => Error,
  ): DescriptorFile {
    const fd = openSync(path, flags, mode)
    let stats: Stats
    try {
      stats = fstatSync(fd)
    } catch (error) {
      closeSync(fd)
      throw error
    }
    if (!stats.isFile()) {
      closeSync(fd)
      throw notRegular(stats)
    }
    return new DescriptorFile(fd, fileStat(stats))
  }

  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return this.call('write', (done) => write(this.fd, buffer, offset, length, position, done))
  }

  writev(buffers: readonly Uint8Array[], position: number): Promise<number> {
    return this.call('pwritev', (done) => writev(this.fd, buffers.slice(), position, done))
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return this.call('read', (done) => read(this.fd, buffer, offset, length, position, done))
  }

  writeSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.assertOpen('write')
    return writeSync(this.fd, buffer, offset, length, position)
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.assertOpen('read')
    return readSync(this.fd, buffer, offset, length, position)
  }

  datasync(): Promise<void> {
    return this.call('fdatasync', (done) => fdatasync(this.fd, (error) => done(error, undefined)))
  }

  truncate(length: number): Promise<void> {
    return this.call('ftruncate', (done) => ftruncate(this.fd, length, (error) => done(error, undefined)))
  }

  async stat(): Promise<FileStat> {
    return fileStat(await this.call('fstat', (done) => fstat(this.fd, done)))
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
      await new Promise<void>((resolve, reject) =>
        close(this.fd, (error) => (error ? reject(error) : resolve())),
      )
    })()
    return this.closed
  }

  /** Runs one callback call on the descriptor, counted in flight (so `close` waits for it). */
  private call<T>(
    syscall: string,
    start: (done: (error: Error | null, value: T) => void) => void,
  ): Promise<T> {
    if (this.closed) return Promise.reject(badDescriptor(syscall))
    this.inFlight++
    return new Promise<T>((resolve, reject) => {
      start((error, value) => {
        if (--this.inFlight === 0) this.idle?.()
        if (error) reject(error)
        else resolve(value)
      })
    })
  }

  private assertOpen(syscall: string): void {
    if (this.closed) throw badDescriptor(syscall)
  }
}

function badDescriptor(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: bad file descriptor, ${syscall}`), {
    code: 'EBADF',
    errno: -9,
    syscall,
  })
}
