import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import type { Readable } from 'node:stream'

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
const NL = 0x0a
const CHUNK = 1 << 20

/** The first line of the file at `path` (without its newline); undefined when there is no file. A file without one is an error. */
export async function firstLine(path: string): Promise<string | undefined> {
  let file: FileHandle
  try {
    file = await open(path, READ_FLAGS)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    if (!(await file.stat()).isFile()) throw new Error(`${path} is not a regular file`)
    const parts: Buffer[] = []
    for (let at = 0; ; ) {
      const buffer = Buffer.alloc(64 << 10)
      const { bytesRead } = await file.read(buffer, 0, buffer.length, at)
      if (bytesRead === 0) throw new Error(`${path}: no complete header line`)
      const end = buffer.subarray(0, bytesRead).indexOf(NL)
      parts.push(buffer.subarray(0, end < 0 ? bytesRead : end))
      if (end >= 0) return Buffer.concat(parts).toString('utf8')
      at += bytesRead
    }
  } finally {
    await file.close()
  }
}

/** The complete lines of a file after its first (without line ends), in order; a torn tail is not given. */
export async function* fileLines(stream: Readable): AsyncGenerator<Buffer> {
  let pending: Buffer[] = []
  let header = true
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0
    for (let end = chunk.indexOf(NL); end >= 0; end = chunk.indexOf(NL, start)) {
      const piece = chunk.subarray(start, end)
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece])
      pending = []
      start = end + 1
      if (header) header = false
      else yield line
    }
    if (start < chunk.length) pending.push(chunk.subarray(start))
  }
}

/** How many bytes follow the file's last line end (a torn tail a crash left). */
export async function tornTail(path: string): Promise<number> {
  const file = await open(path, READ_FLAGS)
  try {
    const size = (await file.stat()).size
    const buffer = Buffer.alloc(64 << 10)
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - buffer.length)
      const { bytesRead } = await file.read(buffer, 0, end - start, start)
      const at = buffer.subarray(0, bytesRead).lastIndexOf(NL)
      if (at >= 0) return size - (start + at + 1)
      end = start
    }
    return size
  } finally {
    await file.close()
  }
}

/** Writes `first` and exactly `count` of `lines`, each with a line end, to `file` in 1 MiB writes. */
export async function writeLines(
  file: FileHandle,
  first: string,
  lines: AsyncIterable<Buffer>,
  count: number,
): Promise<void> {
  let batch: Buffer[] = [Buffer.from(`${first}\n`)]
  let size = 0
  let written = 0
  const newline = Buffer.of(NL)
  for await (const line of lines) {
    if (written === count) break
    batch.push(line, newline)
    size += line.length + 1
    written++
    if (size >= CHUNK) {
      await file.writev(batch)
      batch = []
      size = 0
    }
  }
  if (written !== count)
    throw new Error(`the source holds ${written} events now, not ${count}: it changed while copied`)
  await file.writev(batch)
}

/** fsyncs the directory `dir`, so a name made in it survives a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
