import {
  closeSync,
  copyFileSync,
  fdatasync,
  fdatasyncSync,
  fsync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'

/**
 * The floor of a durable rewind by link, without the store: the file steps alone, each call as
 * cheap as Node makes it (metadata calls synchronous, syncs in the thread pool), on a copy of the
 * session file, in the rewind's order (`rewind-link.ts`):
 * - a record (`O_EXCL`, a few hundred bytes), the kept bytes into a new file and a marker line;
 * - `link` of the old file to the branch's name;
 * - fdatasync of the new file and of the record, fsync of the directory, at once;
 * - `rename` of the new file over the session's, fsync of the directory (the commit).
 * `kernelCopy` takes the kept bytes from a file holding only them, by `copyFile` (in the kernel, as
 * a `copy_file_range` of a range would, which Node does not offer); else they go through a 1 MiB
 * buffer (`pread` + `pwrite`) with an fdatasync started beside the copy every 16 MiB, as the store
 * copies them (`prefix-copy.ts`). Resolves its milliseconds.
 */
export async function floorRewind(
  dir: string,
  session: string,
  kept: { readonly bytes: number; readonly file: string },
  kernelCopy: boolean,
): Promise<number> {
  const record = join(dir, 'floor.branch.json')
  const temp = join(dir, '.floor.tmp')
  const branch = join(dir, 'floor-branch.jsonl')
  const start = performance.now()
  const recordFd = openSync(record, 'wx', 0o600)
  writeSync(
    recordFd,
    `${JSON.stringify({ version: 1, header: { id: 'floor-branch' }, size: 0, tail: '' })}\n`,
  )
  const copyFd = await copyKept({ session, temp, kept, kernelCopy })
  writeSync(copyFd, '{"seq":0,"type":"rewind:marker"}\n', kept.bytes)
  linkSync(session, branch)
  const dirFd = openSync(dir, 'r')
  await Promise.all([callback(fdatasync, copyFd), callback(fdatasync, recordFd), callback(fsync, dirFd)])
  renameSync(temp, session)
  await callback(fsync, dirFd)
  const elapsed = performance.now() - start
  for (const fd of [dirFd, copyFd, recordFd]) closeSync(fd)
  for (const path of [record, branch, session]) unlinkSync(path)
  return elapsed
}

/** Bytes written between two background fdatasyncs of the buffered copy (as `prefix-copy.ts`). */
const WRITEBACK_BYTES = 16 << 20

async function copyKept(copy: {
  readonly session: string
  readonly temp: string
  readonly kept: { readonly bytes: number; readonly file: string }
  readonly kernelCopy: boolean
}): Promise<number> {
  const { session, temp, kept, kernelCopy } = copy
  if (kernelCopy) {
    copyFileSync(kept.file, temp)
    return openSync(temp, 'r+')
  }
  const to = openSync(temp, 'wx', 0o600)
  const from = openSync(session, 'r')
  const buffer = Buffer.allocUnsafe(1 << 20)
  let running: Promise<void> | undefined
  let synced = 0
  for (let at = 0; at < kept.bytes; ) {
    const read = readSync(from, buffer, 0, Math.min(buffer.length, kept.bytes - at), at)
    let written = 0
    while (written < read) written += writeSync(to, buffer, written, read - written, at + written)
    at += read
    if (at < kept.bytes && at - synced >= WRITEBACK_BYTES && running === undefined) {
      synced = at
      running = callback(fdatasync, to).then(() => {
        running = undefined
      })
    }
  }
  closeSync(from)
  await running
  return to
}

function callback(
  call: (fd: number, done: (error: Error | null) => void) => void,
  fd: number,
): Promise<void> {
  return new Promise((resolve, reject) => call(fd, (error) => (error ? reject(error) : resolve())))
}

/** A session file at `path` holding `text`, its bytes on disk (as a session's are after its turns). Untimed. */
export function writeSynced(path: string, text: string): void {
  rmSync(path, { force: true })
  writeFileSync(path, text, { mode: 0o600 })
  const fd = openSync(path, 'r+')
  try {
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
