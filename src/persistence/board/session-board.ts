import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { SessionId } from '../../session/ids.js'
import type { BoardAnswer, BoardNote, SessionBoard } from '../../session/store/persistence-port.js'
import { isAlive, processStartTime } from '../session-lock.js'
import type { StorePaths } from '../store-paths.js'

/** A note or an answer is small; more is not one of ours. */
const MAX_BYTES = 256 * 1024
const NAME = /^([A-Za-z0-9_-]{1,128})\.(board|answer)\.([A-Za-z0-9_-]{1,64})\.json$/
const ownStart = processStartTime(process.pid)
/** How old the store directory's time must be to be trusted as unchanged (coarse clocks). */
const SETTLED_MS = 100

/** The session id of a board or answer file's name, else undefined. */
export function boardSessionOf(name: string): SessionId | undefined {
  return NAME.exec(name)?.[1]
}

/**
 * The store's notice board (see `SessionBoard`): files beside the session files, each written
 * whole under a temp name then renamed (a note) or linked (an answer: the link fails when one is
 * there, so the first answer offered wins). `<id>.board.<pid>.json`: what process `pid` says about
 * session `id` (`{ pid, start, note }`). `<id>.answer.<question>.json`: the answer offered to a
 * question. A note whose process is gone (dead, or its pid reused) is ignored and removed.
 */
export class SessionBoardFiles implements SessionBoard {
  private listed: { stamp: bigint; names: string[] } | undefined

  constructor(
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
  ) {}

  post(id: SessionId, note: BoardNote | undefined): void {
    const path = this.file(id, 'board', String(process.pid))
    try {
      if (note === undefined) {
        removeQuietly(path)
        return
      }
      const temp = this.temp(path)
      writeFileSync(temp, JSON.stringify({ pid: process.pid, start: ownStart, note }), { mode: 0o600 })
      renameSync(temp, path)
    } catch (error) {
      this.warn(`could not post a note on session ${id}: ${(error as Error).message}`)
    }
  }

  async read(id: SessionId): Promise<{ from: string; note: BoardNote }[]> {
    const notes: { from: string; note: BoardNote }[] = []
    for (const name of this.names(id, 'board')) {
      const path = join(this.paths.dir, name)
      const content = readSmall(path) as { pid?: unknown; start?: unknown; note?: unknown } | undefined
      const pid = content?.pid
      if (typeof pid !== 'number' || pid === process.pid || typeof content?.note !== 'object') continue
      if (!isAlive(pid) || (typeof content.start === 'string' && processStartTime(pid) !== content.start)) {
        removeQuietly(path)
        continue
      }
      notes.push({ from: String(pid), note: content.note as BoardNote })
    }
    return notes
  }

  async offer(id: SessionId, question: string, answer: BoardAnswer): Promise<boolean> {
    const path = this.file(id, 'answer', question)
    const temp = this.temp(path)
    try {
      writeFileSync(temp, JSON.stringify(answer), { mode: 0o600, flag: 'wx' })
      linkSync(temp, path)
      return true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        this.warn(`could not answer question ${question} of session ${id}: ${(error as Error).message}`)
      return false
    } finally {
      removeQuietly(temp)
    }
  }

  async answers(
    id: SessionId,
    questions: readonly string[],
  ): Promise<{ question: string; answer: BoardAnswer }[]> {
    const found: { question: string; answer: BoardAnswer }[] = []
    for (const question of questions) {
      const path = this.file(id, 'answer', question)
      const answer = readSmall(path)
      if (answer === undefined) continue
      removeQuietly(path)
      found.push({ question, answer: answer as BoardAnswer })
    }
    return found
  }

  /**
   * The store directory's entries, read again only when its time changed (a note is posted by a
   * rename, which changes it; an append to a session file does not).
   */
  private entries(): string[] {
    const stamp = statSync(this.paths.dir, { bigint: true }).mtimeNs
    // A file system's clock may be coarse (a few ms): two changes in one tick share a time, so a
    // time that recent proves nothing.
    const settled = Date.now() - Number(stamp / 1_000_000n) > SETTLED_MS
    if (!settled || this.listed?.stamp !== stamp) this.listed = { stamp, names: readdirSync(this.paths.dir) }
    return this.listed.names
  }

  private names(id: SessionId, kind: string): string[] {
    try {
      return this.entries().filter((name) => {
        const match = NAME.exec(name)
        return match?.[1] === id && match[2] === kind
      })
    } catch {
      return []
    }
  }

  private file(id: SessionId, kind: 'board' | 'answer', key: string): string {
    const path = join(this.paths.dir, `${id}.${kind}.${key}.json`)
    if (!NAME.test(`${id}.${kind}.${key}.json`)) throw new Error(`not a board name: ${path}`)
    return path
  }

  private temp(path: string): string {
    return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Gone already.
  }
}

/** The JSON in a small regular file (never following a link); undefined when absent or not ours. */
function readSmall(path: string): unknown {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > MAX_BYTES) return undefined
    const buffer = Buffer.alloc(stats.size)
    const length = readSync(fd, buffer, 0, stats.size, 0)
    return JSON.parse(buffer.toString('utf8', 0, length))
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
