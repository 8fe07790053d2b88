import { existsSync, linkSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type FileSystem,
  nodeFileSystem,
  type OpenFile,
  type SyncFileSystem,
} from '../../src/persistence/fs/file-system.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

/**
 * The real file system until the process "dies": once armed, the `crashAt`-th call (of the file
 * system or of a file it opened, reads included) and every call after it throw, so nothing after
 * that point reaches the disk, not even a clean-up: what a SIGKILL there would leave.
 */
class DyingFileSystem implements FileSystem {
  /** Whether it offers the synchronous twins (`now`), as the real one does. */
  constructor(private readonly sync: boolean) {}
  private calls = 0
  private armedAt: number | undefined
  dead = false
  /** The calls made since armed, the one that died included. */
  readonly steps: string[] = []

  arm(crashAt: number): void {
    this.armedAt = crashAt
    this.calls = 0
    this.steps.length = 0
  }

  private step(what: string): void {
    if (this.armedAt === undefined) return
    if (!this.dead) this.steps.push(what)
    if (!this.dead && ++this.calls < this.armedAt) return
    this.dead = true
    throw Object.assign(new Error(`EIO: the process died before ${what}`), { code: 'EIO' })
  }

  /** `call()`, unless the process dies at this step. */
  private unlessDead<T>(what: string, call: () => T): T {
    this.step(what)
    return call()
  }

  async open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): Promise<OpenFile> {
    this.step(`open ${path}`)
    return this.dying(await nodeFileSystem.open(path, flags, mode), path)
  }

  /** `file`, whose every call but `close` dies with the process. */
  private dying(file: OpenFile, path: string): OpenFile {
    const at = <T>(what: string, call: () => T): T => this.unlessDead(`${what} ${path}`, call)
    return {
      ...(file.opened && { opened: file.opened }),
      write: async (...args) => at('write', () => file.write(...args)),
      writev: async (...args) => at('writev', () => file.writev(...args)),
      writeSync: (...args) => at('writeSync', () => file.writeSync(...args)),
      read: async (...args) => at('read', () => file.read(...args)),
      readSync: (...args) => at('readSync', () => file.readSync(...args)),
      datasync: async () => at('fdatasync', () => file.datasync()),
      truncate: async (length) => at('truncate', () => file.truncate(length)),
      stat: async () => at('fstat', () => file.stat()),
      // A dead process's descriptors close all the same.
      close: () => file.close(),
    }
  }

  /** The synchronous twins the rewind uses (when `sync` is on), dying as the others do. */
  get now(): SyncFileSystem | undefined {
    const inner = nodeFileSystem.now
    if (!this.sync || inner === undefined) return undefined
    return {
      open: (path, flags, mode) => {
        this.step(`open ${path}`)
        return this.dying(inner.open(path, flags, mode), path)
      },
      rename: (from, to) => this.unlessDead(`rename ${from}`, () => inner.rename(from, to)),
      link: (from, to) => this.unlessDead(`link ${to}`, () => inner.link(from, to)),
      unlink: (path) => this.unlessDead(`unlink ${path}`, () => inner.unlink(path)),
      stat: (path) => inner.stat(path),
    }
  }

  rename = async (from: string, to: string) =>
    this.unlessDead(`rename ${from}`, () => nodeFileSystem.rename(from, to))
  link = async (from: string, to: string) =>
    this.unlessDead(`link ${to}`, () => nodeFileSystem.link(from, to))
  unlink = async (path: string) => this.unlessDead(`unlink ${path}`, () => nodeFileSystem.unlink(path))
  syncDir = async (path: string) => this.unlessDead('fsync directory', () => nodeFileSystem.syncDir(path))
  readdir = (path: string) => nodeFileSystem.readdir(path)
  stat = (path: string) => nodeFileSystem.stat(path)
}

const strip = (events: readonly SessionEvent[]) => events.map(({ seq, type, data }) => ({ seq, type, data }))

describe('rewind crash points (35.10)', () => {
  // Kept 6 or 30 of 36 events, with the synchronous calls (as the real file system offers them)
  // and without (the asynchronous ones alone); and kept 18 of a session of ~6 MB, whose copy of
  // ~3 MB goes through the buffer in several reads and writes with fdatasyncs started beside it
  // (one every 1 MiB here): a crash can come inside those too (the last column: the least number
  // of the copy's fdatasyncs in a whole run).
  it.each([
    [6, true, 3, 1],
    [30, true, 3, 1],
    [6, false, 3, 1],
    [30, false, 3, 1],
    [18, true, 500_000, 2],
  ])(
    'a crash at each step of a rewind to %i (synchronous calls: %s, prompts of %i bytes) leaves the old state or the new one after the next start-up',
    async (kept, sync, promptBytes, copySyncs) => {
      const seen = { old: 0, new: 0 }
      for (let crashAt = 1; ; crashAt++) {
        const run = tempDir('dsh-rewind-crash-')
        try {
          const fs = new DyingFileSystem(sync)
          // A background sync every 1 MiB copied: the large prompts' copy starts some (the default is 16 MiB).
          const first = await startStore(run.dir, { fs, writebackBytes: 1 << 20 })
          const session = first.sessions.create('s', { meta: { title: 'Work' } })
          for (const text of ['one', 'two', 'three', 'four', 'five', 'six']) {
            appendTurn(session, text.padEnd(promptBytes, '.'))
          }
          await first.sessions.flush('s')
          const before = strip(session.events())
          fs.arm(crashAt)
          const outcome = await first.sessions.rewind(session, kept, { branchId: 'b' }).then(
            () => 'done',
            () => 'crashed',
          )
          const died = fs.dead
          await first.stop().catch(() => {})

          const second = await startStore(run.dir)
          try {
            const loaded = strip((await second.sessions.load('s')).events())
            const branchThere = existsSync(join(run.dir, 'b.jsonl'))
            if (loaded.length === before.length) {
              seen.old++
              expect(loaded).toEqual(before)
              expect(branchThere, `crash point ${crashAt}: no branch beside the old state`).toBe(false)
              expect(existsSync(join(run.dir, 'b.branch.json'))).toBe(false)
            } else {
              seen.new++
              expect(loaded.slice(0, kept)).toEqual(before.slice(0, kept))
              expect(loaded.slice(kept)).toMatchObject([
                { seq: kept + 1, type: 'rewind:marker', data: { branch: 'b' } },
              ])
              const branch = await second.sessions.load('b')
              expect(strip(branch.events()).slice(0, before.length)).toEqual(before)
              expect(branch.header).toMatchObject({ id: 'b', parentSession: 's', seedLength: kept })
              expect(branch.archived).toBe(true)
              expect(branch.title).toBe('Work (before rewind)')
            }
            // At most what the start-up tidy-up removes is left: no temp file of ours.
            expect(readdirSync(run.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
          } finally {
            await second.stop()
          }
          if (!died) {
            expect(outcome).toBe('done')
            // Every step of this run was a crash point of an earlier one: with the large prompts,
            // an fdatasync of the copy beside it, before the one that completes it.
            const syncs = fs.steps.filter((step) => /^fdatasync .*\.tmp$/.test(step))
            expect(syncs.length).toBeGreaterThanOrEqual(copySyncs)
            break
          }
        } finally {
          run.cleanup()
        }
      }
      // Both states were reached: the crash points span the commit.
      expect(seen.old).toBeGreaterThan(0)
      expect(seen.new).toBeGreaterThan(1)
    },
  )

  it('a machine crash that left the link but tore the record (not durable yet) leaves the old state', async () => {
    const run = tempDir('dsh-rewind-torn-')
    try {
      const first = await startStore(run.dir)
      const session = first.sessions.create('s', { meta: { title: 'Work' } })
      for (const text of ['one', 'two']) appendTurn(session, text)
      await first.sessions.flush('s')
      const before = strip(session.events())
      await first.stop()
      // What a rewind leaves after its link when the record's bytes never reached the disk.
      linkSync(join(run.dir, 's.jsonl'), join(run.dir, 'b.jsonl'))
      writeFileSync(join(run.dir, 'b.branch.json'), '{"version":1,"hea')
      const second = await startStore(run.dir)
      try {
        expect(strip((await second.sessions.load('s')).events())).toEqual(before)
        expect(existsSync(join(run.dir, 'b.jsonl'))).toBe(false)
        expect(existsSync(join(run.dir, 'b.branch.json'))).toBe(false)
      } finally {
        await second.stop()
      }
    } finally {
      run.cleanup()
    }
  })
})
