import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionHeader } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import { branchRecordText } from '../branch-record.js'
import { errnoOf, persistenceError, writeFullySync } from '../fs/file-io.js'
import type { FileSystem, OpenFile } from '../fs/file-system.js'
import { releaseLock, takeLock } from '../session-lock.js'
import type { StorePaths } from '../store-paths.js'
import { type CopyOptions, copyPrefix } from './prefix-copy.js'

const noop = () => {}

/** What a rewind by link needs of the backend (the writer's env has it). */
interface RewindEnv {
  readonly fs: FileSystem
  readonly paths: StorePaths
  readonly warn: (message: string) => void
  readonly writebackBytes?: number | undefined
}

/** The writer's view of the session file being rewound (it holds the pen: nothing else writes it). */
export interface RewoundView {
  /** The writer's descriptor of the file (writable): it becomes the branch's. */
  readonly file: OpenFile
  readonly ino: number
  /** Where the file ends (every event written). */
  readonly size: number
  /** Where the last kept event's line ends. */
  readonly keptSize: number
}

/** The branch the old file becomes. */
export interface LinkedBranch {
  readonly header: SessionHeader
  /** The branch's own events' lines after the old log (its title, `session/archived`), with newlines. */
  readonly tail: string
}

/**
 * Rewinds session `id`'s file at the cost of its kept prefix (issue 35.10). The old file becomes
 * the branch by a link; the session's file is written anew:
 * 1. the branch's record `<branch>.branch.json` (its header, where the old file ends, its tail),
 *    O_EXCL (see `branch-record.ts`);
 * 2. the temp file: the kept bytes (`[0, keptSize)`, header included, copied through a buffer:
 *    `copyPrefix`) and `markerLine`;
 * 3. `link(<id>.jsonl, <branch>.jsonl)`: the branch's file is the old inode;
 * 4. the temp file and the record fdatasynced and the directory fsynced (the link), all three at
 *    once: the disk commits them together, so the link costs no round of its own (starting the
 *    record's and the link's syncs with the copy's first background sync, the link made before
 *    the copy, was tried: a 5 MB rewind cost 0.5-1 ms more);
 * 5. `rename(temp, <id>.jsonl)`, directory fsynced: **the commit**. The session's path never lacks
 *    a whole log: before, it is the old file; after, the new one (a new inode: another process
 *    holding the old one gets `SESSION_CHANGED` at its next check). Nothing is renamed before 4
 *    ended: the link and the record are durable before the rename can be;
 * 6. the branch's tail appended to the old inode (no longer at the session's path), not synced: a
 *    machine crash that loses it leaves the branch ending where the record says the old file
 *    ended, and the start-up repair writes it again.
 * The branch's lock is held throughout (the id is guarded, and the start-up repair leaves a rewind
 * in progress alone). A failure before 5 undoes 1-3 and throws (the session's file untouched);
 * one at 5's fsync throws with the rename done (the session must be loaded again); one at 6 is
 * reported and left to the start-up repair (`rewind-repair.ts`), which also finishes or undoes
 * what a crash left: a link whose inode is still the session's is removed with its record (the
 * old state; a machine crash before 4 may leave that record torn: the link's own first line names
 * the session), a committed branch without its tail gets it (the new state).
 * Resolves the new file, open for writing. Costs one copy of the kept bytes, as a fork there does,
 * and two rounds of syncs (4 and 5), as any durable replace of a file does; the second finds only
 * the rename to commit (measured: under a millisecond, where the first, which writes the kept
 * bytes, takes most of the rewind). The opens, the link and the rename are synchronous calls
 * (`FileSystem.now`) where the file system offers them: a thread-pool round trip each cost more
 * than the call on a busy machine.
 */
export async function rewindByLink(
  env: RewindEnv,
  id: SessionId,
  view: RewoundView,
  change: { readonly markerLine: string; readonly branch: LinkedBranch },
): Promise<OpenFile> {
  const { markerLine, branch } = change
  const { paths } = env
  const branchId = branch.header.id
  const branchLock = paths.lockFile(branchId)
  takeLock(branchLock, branchId)
  const step = new RewindSteps(env, id, branchId)
  let replaced: OpenFile
  try {
    replaced = await step.run(view, markerLine, branch)
  } catch (error) {
    await step.undo()
    releaseLock(branchLock)
    const failure =
      error instanceof SessionError ? error : persistenceError(id, `rewind ${step.op}`, step.at, error)
    if (step.committed) afterCommit.add(failure)
    throw failure
  }
  // Not fdatasynced: a tail a machine crash loses, the start-up repair writes again from the record.
  try {
    writeFullySync(view.file, Buffer.from(branch.tail), view.size)
  } catch (error) {
    env.warn(
      `rewind of ${id}: the branch ${branchId} lacks its last events (${(error as Error).message}); the next start-up adds them`,
    )
  } finally {
    releaseLock(branchLock)
  }
  return replaced
}

/**
 * The file operations of one rewind by link, in order, and their undoing. The opens, writes of the
 * record and the marker, the link and the rename are synchronous where the file system offers it
 * (`FileSystem.now`: µs each, where a thread-pool round trip costs milliseconds on a busy machine);
 * only the syncs go to the thread pool.
 */
class RewindSteps {
  /** The operation under way and its path, for the error. */
  op = 'open'
  at: string
  committed = false
  private readonly ops: FileOps
  private readonly path: string
  private readonly branchPath: string
  private readonly recordPath: string
  private readonly temp: string
  private source: OpenFile | undefined
  private copy: OpenFile | undefined
  private record: OpenFile | undefined
  private linked = false
  private readonly closing: Promise<void>[] = []

  constructor(
    private readonly env: RewindEnv,
    private readonly id: SessionId,
    private readonly branchId: SessionId,
  ) {
    const { fs, paths } = env
    this.ops = fs.now ?? fs
    this.path = paths.sessionFile(id)
    this.branchPath = paths.sessionFile(branchId)
    this.recordPath = paths.branchFile(branchId)
    this.temp = paths.tempFile(id)
    this.at = this.path
  }

  /** Steps 1-5 (see {@link rewindByLink}); resolves the new file, open for writing. */
  async run(view: RewoundView, markerLine: string, branch: LinkedBranch): Promise<OpenFile> {
    const { fs, paths } = this.env
    // Read through a descriptor of its own: the writer's may be write-only (a file it created).
    const source = await this.ops.open(this.path, 'r')
    this.source = source
    const found = source.opened ?? (await source.stat())
    if (found.ino !== view.ino || found.size !== view.size) throw changedUnderPen(this.id, this.path)
    const record = await this.writeRecord(branch, view.size)
    this.at = this.temp
    this.copy = await copyKept(this.ops, {
      temp: this.temp,
      source,
      view,
      pace: { writebackBytes: this.env.writebackBytes },
    })
    this.closing.push(source.close().catch(noop))
    this.source = undefined
    writeFullySync(this.copy, Buffer.from(markerLine), view.keptSize)
    this.step('link', this.branchPath)
    await Promise.resolve(this.ops.link(this.path, this.branchPath)).catch((error) => {
      throw errnoOf(error) === 'EEXIST' ? branchExists(this.branchId) : error
    })
    this.linked = true
    this.step('fdatasync', this.temp)
    await allSynced([this.copy.datasync(), record.datasync(), fs.syncDir(paths.dir)])
    this.closing.push(record.close().catch(noop))
    this.step('rename', this.temp)
    await this.ops.rename(this.temp, this.path)
    this.committed = true
    this.step('fsync directory', this.path)
    await fs.syncDir(paths.dir)
    await Promise.all(this.closing)
    return this.copy
  }

  /** Step 1: the branch's record, created (O_EXCL) and written. */
  private async writeRecord(branch: LinkedBranch, size: number): Promise<OpenFile> {
    this.step('create', this.recordPath)
    const record = await Promise.resolve(this.ops.open(this.recordPath, 'wx', 0o600)).catch((error) => {
      throw errnoOf(error) === 'EEXIST' ? branchExists(this.branchId) : error
    })
    this.record = record
    this.step('write', this.recordPath)
    writeFullySync(record, Buffer.from(branchRecordText({ ...branch, size })), 0)
    return record
  }

  /** After a failure: before the commit, the branch's names go (the old file stays whole). */
  async undo(): Promise<void> {
    const { fs, paths } = this.env
    await this.copy?.close().catch(noop)
    if (!this.committed) {
      await fs.unlink(this.temp).catch(noop)
      if (this.linked) await fs.unlink(this.branchPath).catch(noop)
      if (this.record) await fs.unlink(this.recordPath).catch(noop)
      await fs.syncDir(paths.dir).catch(noop)
    }
    for (const file of [this.source, this.record]) if (file) this.closing.push(file.close().catch(noop))
    await Promise.all(this.closing)
  }

  private step(op: string, at: string): void {
    this.op = op
    this.at = at
  }
}

/** What the rewind's steps call: the file system's synchronous twins where it has them, else itself. */
interface FileOps {
  open(path: string, flags: 'r' | 'r+' | 'wx', mode?: number): OpenFile | Promise<OpenFile>
  link(from: string, to: string): void | Promise<void>
  rename(from: string, to: string): void | Promise<void>
}

/** Waits for every one of `syncs` (all started), then throws the first failure. */
async function allSynced(syncs: readonly Promise<void>[]): Promise<void> {
  await Promise.all(syncs.map((sync) => sync.catch(noop)))
  await Promise.all(syncs)
}

/** Failures that came after the commit (the session's path holds the new file): see {@link failedAfterCommit}. */
const afterCommit = new WeakSet<Error>()

/** Whether `rewindByLink` threw `error` after the rename committed the rewind. */
export function failedAfterCommit(error: unknown): boolean {
  return error instanceof Error && afterCommit.has(error)
}

/**
 * The temp file holding the first `keptSize` bytes of the session file, copied through a buffer
 * from `source` while the disk writes them (`copyPrefix`: each kept byte read and written once,
 * fdatasyncs started beside the copy). Copying the whole file inside the kernel and cutting it was
 * tried for a prefix over 80 % of the file: with the disk writing beside the buffered copy, the
 * buffered copy cost as much at 90 % on a quiet box and 0.65-0.9x as much at 75-90 % on a busy one.
 */
async function copyKept(ops: FileOps, kept: KeptCopy): Promise<OpenFile> {
  const { temp, source, view, pace } = kept
  const copy = await ops.open(temp, 'wx', 0o600)
  try {
    await copyPrefix({ file: source, start: 0, end: view.keptSize, ends: [] }, copy, 0, pace)
  } catch (error) {
    await copy.close().catch(noop)
    throw error
  }
  return copy
}

/** The temp file the kept bytes go to, the session file opened for reading, the view. */
interface KeptCopy {
  readonly temp: string
  readonly source: OpenFile
  readonly view: RewoundView
  readonly pace: CopyOptions
}

function branchExists(id: SessionId): SessionError {
  return new SessionError(SessionErrorCode.SESSION_ALREADY_EXISTS, `session ${id} already exists on disk`, {
    sessionId: id,
  })
}

/** The file is not this writer's view although it holds the pen: a bug or a hand edit; nothing is changed. */
function changedUnderPen(id: SessionId, path: string): SessionError {
  return new SessionError(
    SessionErrorCode.SESSION_CHANGED,
    `session ${id}: its file ${path} is not the one this process holds the pen of: nothing was rewound; load it again`,
    { sessionId: id, path },
  )
}
