import type { FileSystem, OpenFile } from './file-system.js'

/** `open` counts opens for writing; `openRead` opens for reading (as `list` does). */
export type FaultyOperation = 'write' | 'datasync' | 'rename' | 'link' | 'truncate' | 'open' | 'openRead'

/**
 * What to break: the `nth` call (1-based, counted over every file) of `operation` fails with
 * `error`. `short` (writes only) writes half the bytes and reports it, as a filling disk does;
 * every later write then fails with ENOSPC. With `sticky`, every call after the nth fails too.
 */
export interface Fault {
  readonly operation: FaultyOperation
  readonly nth: number
  readonly error: 'ENOSPC' | 'EIO' | 'EACCES' | 'EMFILE' | 'short'
  readonly sticky?: boolean
}

function errnoError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const error = new Error(`${code}: injected fault, ${syscall} '${path}'`) as NodeJS.ErrnoException
  error.code = code
  error.syscall = syscall
  error.path = path
  return error
}

/** A {@link FileSystem} that delegates to `inner` and injects one {@link Fault}. For tests. */
export class FaultyFileSystem implements FileSystem {
  private readonly counts = new Map<FaultyOperation, number>()
  private diskFull = false
  /** How many faults were injected so far. */
  injected = 0

  constructor(
    private readonly inner: FileSystem,
    private readonly fault: Fault,
  ) {}

  /** Throws the injected error if this call of `operation` is the one to break. */
  private check(operation: FaultyOperation, path: string): 'short' | undefined {
    if (operation === 'write' && this.diskFull) throw errnoError('ENOSPC', 'write', path)
    const count = (this.counts.get(operation) ?? 0) + 1
    this.counts.set(operation, count)
    if (operation !== this.fault.operation) return undefined
    if (count === this.fault.nth || (this.fault.sticky && count > this.fault.nth)) {
      this.injected++
      if (this.fault.error === 'short') {
        this.diskFull = true
        return 'short'
      }
      throw errnoError(this.fault.error, operation, path)
    }
    return undefined
  }

  async open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): Promise<OpenFile> {
    this.check(flags === 'r' ? 'openRead' : 'open', path)
    const file = await this.inner.open(path, flags, mode)
    const check = (operation: FaultyOperation) => this.check(operation, path)
    return {
      async write(buffer, offset, length, position) {
        if (check('write') === 'short') {
          return file.write(buffer, offset, Math.max(0, Math.floor(length / 2)), position)
        }
        return file.write(buffer, offset, length, position)
      },
      async writev(buffers, position) {
        if (check('write') === 'short') return file.writev(firstHalf(buffers), position)
        return file.writev(buffers, position)
      },
      writeSync(buffer, offset, length, position) {
        if (check('write') === 'short') {
          return file.writeSync(buffer, offset, Math.max(0, Math.floor(length / 2)), position)
        }
        return file.writeSync(buffer, offset, length, position)
      },
      read: (buffer, offset, length, position) => file.read(buffer, offset, length, position),
      readSync: (buffer, offset, length, position) => file.readSync(buffer, offset, length, position),
      async datasync() {
        check('datasync')
        await file.datasync()
      },
      async truncate(length) {
        check('truncate')
        await file.truncate(length)
      },
      stat: () => file.stat(),
      close: () => file.close(),
    }
  }

  async rename(from: string, to: string): Promise<void> {
    this.check('rename', from)
    await this.inner.rename(from, to)
  }

  async link(from: string, to: string): Promise<void> {
    this.check('link', to)
    await this.inner.link(from, to)
  }

  unlink(path: string): Promise<void> {
    return this.inner.unlink(path)
  }

  async syncDir(path: string): Promise<void> {
    this.check('datasync', path)
    await this.inner.syncDir(path)
  }

  readdir(path: string): ReturnType<FileSystem['readdir']> {
    return this.inner.readdir(path)
  }

  stat(path: string): ReturnType<FileSystem['stat']> {
    return this.inner.stat(path)
  }
}

/** The first half of the bytes of `buffers` (rounded down), as a short write would take them. */
function firstHalf(buffers: readonly Uint8Array[]): Uint8Array[] {
  let left = Math.floor(buffers.reduce((sum, b) => sum + b.length, 0) / 2)
  const half: Uint8Array[] = []
  for (const buffer of buffers) {
    if (left === 0) break
    const part = buffer.length <= left ? buffer : buffer.subarray(0, left)
    half.push(part)
    left -= part.length
  }
  return half
}
