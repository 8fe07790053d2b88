import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import type { SessionEvent } from '../../session/log/events.js'
import { headerLine } from '../file-format.js'
import { writeFully } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import { copyPrefix, type PrefixSnapshot } from './prefix-copy.js'
import type { WriterEnv } from './writer-env.js'

/** Serialized seed bytes written at once. */
const SEED_BATCH = 4 << 20
const noop = () => {}

/** A session file just created: open for appending, and where its header and each seed line end. */
export interface CreatedFile {
  readonly file: OpenFile
  readonly headerEnd: number
  readonly ends: number[]
}

/** What a new session file holds: its header and seed, the seed's bytes copied from `prefix` when it covers them. */
interface NewFileContents {
  readonly header: SessionHeader
  readonly seed: readonly SessionEvent[]
  readonly prefix: Promise<PrefixSnapshot | undefined> | undefined
}

/**
 * Creates the file of session `id`: header and seed written to a temp file (O_EXCL), fdatasynced,
 * renamed into place, directory fsynced. The seed comes from `prefix` (a byte range of the
 * parent's file, closed here) when it covers the seed, else is serialized from `seed`. A create
 * that fails leaves nothing behind, reports `failed(op, path, error)` and resolves undefined.
 */
export async function createSessionFile(
  env: Pick<WriterEnv, 'fs' | 'paths' | 'writebackBytes'>,
  id: SessionId,
  contents: NewFileContents,
  failed: (op: string, path: string, error: unknown) => void,
): Promise<CreatedFile | undefined> {
  const { fs, paths } = env
  const { header, seed, prefix } = contents
  const temp = paths.tempFile(id)
  const path = paths.sessionFile(id)
  const snapshot = await prefix
  let file: OpenFile | undefined
  let op = 'open'
  let renamed = false
  try {
    file = await fs.open(temp, 'wx', 0o600)
    op = 'write'
    const head = Buffer.from(headerLine(header))
    await writeFully(file, head, 0)
    // A seed that starts with the snapshot (a fork child's is it, a rewind branch's goes on)
    // copies its bytes and serializes only the rest.
    const copied = snapshot && snapshot.ends.length <= seed.length ? snapshot.ends.length : 0
    const ends =
      snapshot && copied > 0
        ? await copyPrefix(snapshot, file, head.length, { writebackBytes: env.writebackBytes })
        : []
    const copiedEnd = ends.length > 0 ? (ends[ends.length - 1] as number) : head.length
    if (copied < seed.length) ends.push(...(await writeEvents(file, seed.slice(copied), copiedEnd)))
    op = 'fdatasync'
    await file.datasync()
    op = 'rename'
    await fs.rename(temp, path)
    renamed = true
    op = 'fsync directory'
    await fs.syncDir(paths.dir)
    return { file, headerEnd: head.length, ends }
  } catch (error) {
    await file?.close().catch(noop)
    // A create that failed leaves nothing behind: not the temp file, nor a file already renamed
    // into place whose directory entry could not be made durable.
    await fs.unlink(renamed ? path : temp).catch(noop)
    if (renamed) await fs.syncDir(paths.dir).catch(noop)
    failed(op, renamed ? path : temp, error)
    return undefined
  } finally {
    await snapshot?.file.close().catch(noop)
  }
}

async function writeEvents(to: OpenFile, events: readonly SessionEvent[], at: number): Promise<number[]> {
  const ends: number[] = []
  let batch: Buffer[] = []
  let batchBytes = 0
  let position = at
  const write = async () => {
    await writeFully(to, Buffer.concat(batch), position)
    position += batchBytes
    batch = []
    batchBytes = 0
  }
  for (const event of events) {
    const line = Buffer.from(`${JSON.stringify(event)}\n`)
    batch.push(line)
    batchBytes += line.length
    ends.push(position + batchBytes)
    if (batchBytes >= SEED_BATCH) await write()
  }
  if (batchBytes > 0) await write()
  return ends
}
