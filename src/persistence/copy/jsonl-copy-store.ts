import { constants } from 'node:fs'
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { SessionId } from '../../session/ids.js'
import { BlobDirectory } from '../blobs/blob-directory.js'
import { parseBranchRecord } from '../branch-record.js'
import { headerLine, parseHeader } from '../file-format.js'
import { StorePaths } from '../store-paths.js'
import { tidyStore } from '../store-tidy.js'
import {
  type BlobName,
  type CopyStore,
  type ScannedSession,
  SessionTaken,
  type StoredHead,
} from './copy-store.js'
import { fileLines, firstLine, syncDirectory, tornTail, writeLines } from './file-lines.js'

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * A JSONL store directory as one side of a copy: `<id>.jsonl` files (and `<id>.branch.json`
 * records of rewind branches a link made), `blobs/`. Read as bytes; written as the JSONL backend
 * writes a new session: a temp file, fdatasynced, linked into place only if no file is there, the
 * directory fsynced. A copy into a directory first tidies it as a start of dsh-acp would (temp
 * files a killed copy left, interrupted rewinds).
 */
export class JsonlCopyStore implements CopyStore {
  private readonly paths: StorePaths
  private readonly blobs: BlobDirectory

  private constructor(readonly name: string) {
    this.paths = new StorePaths(name)
    this.blobs = new BlobDirectory(this.paths.blobDir)
  }

  /** The store at `dir`: it must be a directory; as a target it is made (0700) when missing. */
  static async open(dir: string, role: 'from' | 'to'): Promise<JsonlCopyStore> {
    const path = resolve(dir)
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw new Error(`${path}: ${error.message}`)
    })
    if (found && !found.isDirectory()) throw new Error(`${path} is not a directory`)
    if (!found && role === 'from') throw new Error(`${path}: no such directory`)
    if (!found) await mkdir(path, { recursive: true, mode: 0o700 })
    const store = new JsonlCopyStore(path)
    if (role === 'to') {
      tidyStore(store.paths, { info: () => {}, warn: (m) => process.stderr.write(`dsh-acp: ${m}\n`) })
    }
    return store
  }

  async ids(): Promise<SessionId[]> {
    const names = await readdir(this.name)
    return names.flatMap((n) => StorePaths.sessionIdOf(n) ?? []).sort()
  }

  async head(id: SessionId): Promise<StoredHead | undefined> {
    const path = this.paths.sessionFile(id)
    const text = await firstLine(path)
    if (text === undefined) return undefined
    const header = parseHeader(text, path)
    if (header.id === id) return { id, header, headerText: text }
    // A rewind branch a link made: its own header is in its record.
    const recordText = await readFile(this.paths.branchFile(id), {
      encoding: 'utf8',
      flag: READ_FLAGS,
    }).catch(() => undefined)
    const record = recordText === undefined ? undefined : parseBranchRecord(recordText, path, id)
    if (recordText === undefined || record?.header.parentSession !== header.id) {
      return { id, header: parseHeader(text, path, id), headerText: text }
    }
    return {
      id,
      header: record.header,
      headerText: headerLine(record.header).trimEnd(),
      fileForm: { firstLine: text, record: recordText },
    }
  }

  async *lines(id: SessionId): AsyncGenerator<Buffer> {
    const file = await open(this.paths.sessionFile(id), READ_FLAGS)
    try {
      yield* fileLines(file.createReadStream({ highWaterMark: 1 << 20, autoClose: false }))
    } finally {
      await file.close()
    }
  }

  tornBytes(id: SessionId): Promise<number> {
    return tornTail(this.paths.sessionFile(id))
  }

  getBlob(name: BlobName): Promise<Buffer | undefined> {
    return this.blobs.get(name)
  }

  putBlob(bytes: Buffer): Promise<BlobName> {
    return this.blobs.put(bytes)
  }

  async write(scanned: ScannedSession, lines: AsyncIterable<Buffer>): Promise<void> {
    const { id, fileForm, headerText } = scanned.head
    const final = this.paths.sessionFile(id)
    if (await exists(final)) throw new SessionTaken(id)
    const temp = this.paths.tempFile(id)
    const file = await open(temp, 'wx', 0o600)
    try {
      await writeLines(file, fileForm?.firstLine ?? headerText, lines, scanned.lastSeq)
      await file.datasync()
    } catch (error) {
      await file.close()
      await unlink(temp).catch(() => {})
      throw error
    }
    await file.close()
    try {
      if (fileForm) await this.writeRecord(id, fileForm.record)
      // Only where no file is: a session another writer made meanwhile is never replaced.
      await link(temp, final).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'EEXIST' ? new SessionTaken(id) : error
      })
    } finally {
      await unlink(temp).catch(() => {})
    }
    await syncDirectory(this.name)
  }

  private async writeRecord(id: SessionId, text: string): Promise<void> {
    const temp = this.paths.tempFile(id)
    const file = await open(temp, 'wx', 0o600)
    try {
      await file.writeFile(text)
      await file.datasync()
    } finally {
      await file.close()
    }
    await rename(temp, this.paths.branchFile(id))
  }

  async close(): Promise<void> {}
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}
