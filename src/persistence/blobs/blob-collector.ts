import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { SESSION_FILE_SUFFIX } from '../store-paths.js'
import type { BlobCollection, BlobDirectory } from './blob-directory.js'

/** How young a blob is spared by a collection by default: it may be named by an event on its way. */
export const BLOB_GRACE_MS = 60 * 60 * 1000

/**
 * Collects the blobs no session of the store names any more, after a session was removed: one
 * collection at a time, and one more at most queued behind it. Every session file of the store
 * counts, whatever its state (archived, a rewind's branch, a fork, a file still being created),
 * so a blob goes only once the last session naming it is gone. Failures are warned, never thrown.
 */
export class BlobCollector {
  private running: Promise<unknown> = Promise.resolve()
  private queued: Promise<BlobCollection | undefined> | undefined

  constructor(
    private readonly blobs: BlobDirectory,
    private readonly storeDir: string,
    private readonly graceMs: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Starts a collection after the running one (joining one already queued); resolves what it did. */
  soon(): Promise<BlobCollection | undefined> {
    if (this.queued) return this.queued
    const next = this.running.then(() => {
      this.queued = undefined
      return this.collect()
    })
    this.queued = next
    this.running = next
    return next
  }

  /** Resolves once no collection runs or waits. */
  async idle(): Promise<void> {
    await this.running
  }

  /** Every session file of the store, and those being created (temp files). */
  private async sessionFiles(): Promise<string[]> {
    const names = await readdir(this.storeDir)
    return names
      .filter((name) => name.endsWith(SESSION_FILE_SUFFIX) || name.endsWith('.tmp'))
      .map((name) => join(this.storeDir, name))
  }

  private async collect(): Promise<BlobCollection | undefined> {
    try {
      return await this.blobs.collect(() => this.sessionFiles(), this.graceMs)
    } catch (error) {
      this.warn(`checkpoint blobs were not collected: ${(error as Error).message}`)
      return undefined
    }
  }
}
