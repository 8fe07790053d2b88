import { close, fstat, open, read, readSync, type Stats } from 'node:fs'
import type { FileStat, OpenFile } from './open-file.js'

/** The fields of a `Stats` the backend uses. */
export function fileStat(s: Stats): FileStat {
  return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, isFile: s.isFile() }
}

function badDescriptor(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: bad file descriptor, ${syscall}`), {
    code: 'EBADF',
    errno: -9,
    syscall,
  })
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
  private inFlight = 0
  private idle: (() => void) | undefined
  private closed: Promise<void> | undefined

  constructor(
    private readonly fd: number,
    readonly opened: FileStat,
  ) {}

  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    if (this.closed) return Promise.reject(badDescriptor('read'))
    this.inFlight++
    return new Promise((resolve, reject) => {
      read(this.fd, buffer, offset, length, position, (error, bytesRead) => {
        this.settled()
        if (error) reject(error)
        else resolve(bytesRead)
      })
    })
  }

  readSync(buffer: Uint8Array, offset: number, length: number, position: number): number {
    if (this.closed) throw badDescriptor('read')
    return readSync(this.fd, buffer, offset, length, position)
  }

  stat(): Promise<FileStat> {
    if (this.closed) return Promise.reject(badDescriptor('fstat'))
    this.inFlight++
    return new Promise((resolve, reject) => {
      fstat(this.fd, (error, stats) => {
        this.settled()
        if (error) reject(error)
        else resolve(fileStat(stats))
      })
    })
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
    this.closed ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve))
      await new Promise<void>((resolve, reject) =>
        close(this.fd, (error) => (error ? reject(error) : resolve())),
      )
    })()
    return this.closed
  }

  private settled(): void {
    if (--this.inFlight === 0) this.idle?.()
  }
}
