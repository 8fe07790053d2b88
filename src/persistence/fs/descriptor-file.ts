import {
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
import { DescriptorCalls } from './descriptor-calls.js'
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
  private readonly calls: DescriptorCalls

  private constructor(
    private readonly fd: number,
    readonly opened: FileStat,
  ) {
    this.calls = new DescriptorCalls(fd)
  }

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
    return this.calls.call('write', (done) => write(this.fd, buffer, offset, length, position, done))
  }

  writev(buffers: readonly Uint8Array[], position: number): Promise<number> {
    return this.calls.call('pwritev', (done) => writev(this.fd, buffers.slice(), position, done))
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return this.calls.call('read', (done) => read(this.fd, buffer, offset, length, position, done))
  }

  writeSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.calls.assertOpen('write')
    return writeSync(this.fd, buffer, offset, length, position)
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.calls.assertOpen('read')
    return readSync(this.fd, buffer, offset, length, position)
  }

  datasync(): Promise<void> {
    return this.calls.call('fdatasync', (done) => fdatasync(this.fd, (error) => done(error, undefined)))
  }

  truncate(length: number): Promise<void> {
    return this.calls.call('ftruncate', (done) =>
      ftruncate(this.fd, length, (error) => done(error, undefined)),
    )
  }

  async stat(): Promise<FileStat> {
    return fileStat(await this.calls.call('fstat', (done) => fstat(this.fd, done)))
  }

  close(): Promise<void> {
    return this.calls.close()
  }
}
