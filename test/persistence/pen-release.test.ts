import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem, type OpenFile } from '../../src/persistence/index.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

// Issue 34 item 1: nothing is written to a session file without its pen (the lock file). On 0.3 a
// pen let go while its release waited for an fdatasync, then taken and let go again, dropped the
// lock before the second hold's events were written: another process taking the pen then would
// have written at the same offset.

let store: ReturnType<typeof tempDir>
beforeEach(() => {
  store = tempDir()
})
afterEach(() => store.cleanup())

/** The real file system, recording writes made without the lock file, with fdatasyncs held at a gate. */
class WatchedFileSystem implements FileSystem {
  readonly unlocked: string[] = []
  private gate: Promise<void> | undefined
  private open_: (() => void) | undefined
  private reached: (() => void) | undefined
  readonly rename = nodeFileSystem.rename
  readonly link = nodeFileSystem.link
  readonly unlink = nodeFileSystem.unlink
  readonly syncDir = nodeFileSystem.syncDir
  readonly readdir = nodeFileSystem.readdir
  readonly stat = nodeFileSystem.stat

  constructor(private readonly lock: string) {}

  /** Holds the next fdatasyncs until `release`; resolves once one waits there. */
  hold(): Promise<void> {
    this.gate = new Promise((resolve) => {
      this.open_ = resolve
    })
    return new Promise((resolve) => {
      this.reached = resolve
    })
  }

  release(): void {
    this.open_?.()
    this.gate = undefined
  }

  async open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): Promise<OpenFile> {
    const file = await nodeFileSystem.open(path, flags, mode)
    const watched = <T>(result: T): T => {
      if (!existsSync(this.lock)) this.unlocked.push(path)
      return result
    }
    return {
      ...(file.opened && { opened: file.opened }),
      write: (...args) => watched(file.write(...args)),
      writev: (...args) => watched(file.writev(...args)),
      writeSync: (...args) => watched(file.writeSync(...args)),
      read: (...args) => file.read(...args),
      readSync: (...args) => file.readSync(...args),
      truncate: (length) => file.truncate(length),
      stat: () => file.stat(),
      close: () => file.close(),
      datasync: async () => {
        const gate = this.gate
        if (gate) {
          this.reached?.()
          await gate
        }
        return file.datasync()
      },
    }
  }
}

describe('the pen and the writes', () => {
  it('a pen taken again while its release waits keeps the lock until what it appended is written', async () => {
    const fs = new WatchedFileSystem(join(store.dir, 'pen.lock'))
    const s = await startStore(store.dir, { fs })
    const session = s.sessions.create('pen', { meta: { cwd: '/p' } })
    await s.sessions.flush(session.id)
    appendTurn(session, 'one')
    // The turn's pen is let go after this burst of work; its release waits in its fdatasync.
    const waiting = fs.hold()
    await waiting
    // Meanwhile the session is written again: the pen is taken again (the lock still held) and let go.
    appendTurn(session, 'two')
    await new Promise((resolve) => setImmediate(resolve))
    fs.release()
    await s.sessions.flush(session.id)
    await s.persistence.idle()
    expect(fs.unlocked).toEqual([])
    await s.stop()
  })
})
