import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, readdir, rename, unlink, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { isAlive } from '../session-lock.js'
import { markWriter, otherWriters } from './blob-writers.js'

/** A blob's name: `sha256:` and the 64 hex digits of its bytes' SHA-256. Its file is named by the digits. */
const NAME = /^sha256:([0-9a-f]{64})$/
const FILE = /^[0-9a-f]{64}$/
const TEMP = /^\.[0-9a-f]{64}\.(\d+)\.[0-9a-f]{12}\.tmp$/

/**
 * When this process last put each blob, per blob directory (the agent and the backend each have
 * an instance): a blob this process put may be named by an event still on its way to a file.
 */
const ownPuts = new Map<string, Map<string, number>>()

function recordPut(dir: string, hex: string): void {
  const puts = ownPuts.get(dir) ?? new Map<string, number>()
  ownPuts.set(dir, puts)
  puts.set(hex, Date.now())
}

/** Whether this process put blob `hex` of `dir` since `since` (older records are dropped). */
function putSince(dir: string, hex: string, since: number): boolean {
  const puts = ownPuts.get(dir)
  const at = puts?.get(hex)
  if (at === undefined) return false
  if (at > since) return true
  puts?.delete(hex)
  return false
}

/**
 * Content-addressed blobs beside the sessions (`<store>/blobs/<hex>`, 0600 in a 0700 directory):
 * the content of files before the agent's tools changed them, named by checkpoint events. A blob
 * is written to a temp file, fsynced, renamed into place and the directory fsynced, so `put`
 * resolves only once it is durable, and a crash leaves it whole or absent (a temp file at most,
 * which {@link collect} removes). The same bytes are kept once.
 */
export class BlobDirectory {
  constructor(readonly dir: string) {}

  /** Keeps `bytes`; resolves their name once they are durable (an existing blob's time is refreshed). */
  async put(bytes: Uint8Array): Promise<`sha256:${string}`> {
    const hex = createHash('sha256').update(bytes).digest('hex')
    const file = join(this.dir, hex)
    recordPut(this.dir, hex)
    if (await this.holds(hex, bytes.length)) {
      markWriter(this.dir)
      // Fresh again, so a collection running now (which spares young blobs) keeps it.
      const now = new Date()
      await utimes(file, now, now)
      return `sha256:${hex}`
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 })
    markWriter(this.dir)
    const temp = join(this.dir, `.${hex}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
    const handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    )
    try {
      await handle.writeFile(bytes)
      await handle.datasync()
    } catch (error) {
      await handle.close()
      await unlink(temp).catch(() => {})
      throw error
    }
    await handle.close()
    try {
      await rename(temp, file)
    } catch (error) {
      await unlink(temp).catch(() => {})
      throw error
    }
    await syncDirectory(this.dir)
    return `sha256:${hex}`
  }

  /** Whether the blob `hex` is kept whole (a damaged one is written again, replacing it). */
  private async holds(hex: string, size: number): Promise<boolean> {
    const existing = await lstatOrUndefined(join(this.dir, hex))
    if (!existing?.isFile() || existing.size !== size) return false
    return (await this.get(`sha256:${hex}`).catch(() => undefined)) !== undefined
  }

  /** The bytes named `name`, or undefined when they are not kept. Throws when the file does not hold them. */
  async get(name: `sha256:${string}`): Promise<Buffer | undefined> {
    const hex = NAME.exec(name)?.[1]
    if (hex === undefined) return undefined
    let handle: Awaited<ReturnType<typeof open>>
    try {
      handle = await open(
        join(this.dir, hex),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      )
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
    try {
      if (!(await handle.stat()).isFile()) throw new Error(`blob ${name} is not a regular file`)
      const bytes = await handle.readFile()
      if (createHash('sha256').update(bytes).digest('hex') !== hex) {
        throw new Error(`blob ${name} does not hold the bytes it names (corrupt)`)
      }
      return bytes
    } finally {
      await handle.close()
    }
  }

  /**
   * Removes every blob that no file `referencing()` lists names (as `sha256:<hex>` anywhere in its bytes)
   * and that is not spared by the grace: a blob is written before the event naming it reaches its
   * session file, so one younger than `graceMs` may be named by an event still on its way. Only a
   * live writer can have such an event on its way: a young blob is spared when this process put it
   * within the grace, or while another live process writes blobs here (its marker, see
   * `blob-writers.ts`); with no other writer, what only a deleted session named goes at once. Leftover temp files go too: at once when the process named in their name is
   * gone (a kill mid-put), else past the grace. Resolves what was removed and kept.
   */
  async collect(referencing: () => Promise<readonly string[]>, graceMs: number): Promise<BlobCollection> {
    const started = Date.now()
    const names = await readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[]
      throw error
    })
    const result: BlobCollection = { removed: 0, removedBytes: 0, kept: 0, keptBytes: 0 }
    if (names.length === 0) return result
    const named = new Set<string>()
    const scanned = new Set<string>()
    // Listed again until no new file appears: a fork made meanwhile names its parent's blobs.
    for (let files = await referencing(); ; files = await referencing()) {
      const fresh = files.filter((file) => !scanned.has(file))
      if (fresh.length === 0) break
      for (const file of fresh) {
        scanned.add(file)
        await scanNames(file, named)
      }
    }
    // Checked after the scan: a writer marks itself before its blob, and its blob before its event.
    const othersWriting = otherWriters(this.dir)
    for (const name of names) {
      const isBlob = FILE.test(name)
      if (!isBlob && !TEMP.test(name)) continue
      const info = await lstatOrUndefined(join(this.dir, name))
      if (!info?.isFile()) continue
      // A temp file of a process that is gone (a kill mid-put) is nobody's work in progress.
      const since = started - graceMs
      const young = isBlob
        ? info.mtimeMs > since && (othersWriting || putSince(this.dir, name, since))
        : info.mtimeMs > since && writerAlive(name)
      if ((isBlob && named.has(name)) || young) {
        if (isBlob) {
          result.kept++
          result.keptBytes += info.size
        }
        continue
      }
      await unlink(join(this.dir, name)).catch(() => {})
      if (isBlob) {
        result.removed++
        result.removedBytes += info.size
      }
    }
    return result
  }
}

export interface BlobCollection {
  removed: number
  removedBytes: number
  kept: number
  keptBytes: number
}

const CHUNK = 1 << 20
const PREFIX = Buffer.from('sha256:', 'latin1')
const HEX_DIGITS = 64
/** Bytes kept from a chunk's end for the next: a name cut by the chunk boundary is read whole. */
const OVERLAP = PREFIX.length + HEX_DIGITS

/** Adds every blob name mentioned in `file` to `named` (a file that is gone names none). */
async function scanNames(file: string, named: Set<string>): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ELOOP') return
    throw error
  }
  try {
    const buffer = Buffer.alloc(OVERLAP + CHUNK)
    let kept = 0
    let position = 0
    while (true) {
      const { bytesRead } = await handle.read(buffer, kept, CHUNK, position)
      if (bytesRead === 0) break
      position += bytesRead
      const end = kept + bytesRead
      namesIn(buffer.subarray(0, end), named)
      kept = Math.min(OVERLAP, end)
      buffer.copy(buffer, 0, end - kept, end)
    }
  } finally {
    await handle.close()
  }
}

/** Adds each `sha256:` followed by 64 lowercase hex digits in `bytes` to `named` (the digits). */
function namesIn(bytes: Buffer, named: Set<string>): void {
  for (let at = bytes.indexOf(PREFIX); at >= 0; at = bytes.indexOf(PREFIX, at + 1)) {
    const from = at + PREFIX.length
    if (from + HEX_DIGITS > bytes.length) return
    let hex = true
    for (let i = from; i < from + HEX_DIGITS && hex; i++) {
      const c = bytes[i] as number
      hex = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)
    }
    if (hex) named.add(bytes.toString('latin1', from, from + HEX_DIGITS))
  }
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Whether the process that named a blob temp file (`.<hex>.<pid>.<random>.tmp`) still runs. */
function writerAlive(tempName: string): boolean {
  const pid = Number(TEMP.exec(tempName)?.[1])
  return isAlive(pid)
}
