import { close, fstat, open, read, readSync, type Stats } from 'node:fs'
import { badDescriptor, DescriptorCalls } from './descriptor-calls.js'
import type { FileStat, OpenFile } from './open-file.js'

/** The fields of a `Stats` the backend uses. */
export function fileStat(s: Stats): FileStat {
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, isFile: s.isFile() }
}

/** Opens `path` with `flags` and stats it: the descriptor and its stat (the descriptor closed if the stat fails). */
export function openDescriptor(path: string, flags: number): Promise<{ fd: number; stats: Stats }> {
  return new Promise((resolve, reject) => {
    open(path, flags, (openError, fd) => {
      if (openError) return reject(openError)
      fstat(fd, (statError, stats) => {
        if (!statError) return resolve({ fd, stats })
        close(fd, () => reject(statError))
      })
    })
  })
}

/**
 * A file opened for reading, on its bare descriptor: cheaper than a `FileHandle` to open and close
 * (`list` opens every session file once). As a `FileHandle` does, `close` happens once and waits
 * for the reads in flight; nothing reads through the descriptor after `close` began (it fails with
 * EBADF), so a descriptor number the kernel reuses is never read by mistake. Writes fail with EBADF,
 * as they do on any descriptor opened read-only.
 */
export class ReadOnlyFile implements OpenFile {
  private readonly calls: DescriptorCalls

  constructor(
    private readonly fd: number,
    readonly opened: FileStat,
  ) {
    this.calls = new DescriptorCalls(fd)
  }

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    return this.calls.call('read', (done) => read(this.fd, buffer, offset, length, position, done))
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    this.calls.assertOpen('read')
    return readSync(this.fd, buffer, offset, length, position)
  }

  async stat(): Promise<FileStat> {
    return fileStat(await this.calls.call('fstat', (done) => fstat(this.fd, done)))
  }

  write(): Promise<number> {
    return Promise.reject(badDescriptor('write'))
  }

  writev(): Promise<number> {
    return Promise.reject(badDescriptor('pwritev'))
  }

  writeSync(): number {
    throw badDescriptor('write')
  }

  datasync(): Promise<void> {
    return Promise.reject(badDescriptor('fdatasync'))
  }

  truncate(): Promise<void> {
    return Promise.reject(badDescriptor('ftruncate'))
  }

  close(): Promise<void> {
    return this.calls.close()
  }
}
