import { lstatSync, mkdirSync } from 'node:fs'
import type { Context, Logger } from 'cordis'
import { SessionError, SessionErrorCode } from '../session/errors.js'
import type { ListOptions, SessionHeader, SessionPage, SessionSummary } from '../session/header.js'
import type { SessionId } from '../session/ids.js'
import type { SessionEvent } from '../session/log/events.js'
import type { Session } from '../session/session.js'
import type {
  SessionPersistence,
  StoredEventListener,
  StoredEventVisitor,
} from '../session/store/persistence-port.js'
import { type DisposeReason, inheritedEventCount } from '../session/store/store.js'
import { BLOB_GRACE_MS, BlobCollector } from './blobs/blob-collector.js'
import { BlobDirectory } from './blobs/blob-directory.js'
import { SessionBoardFiles } from './board/session-board.js'
import { SessionStreamFiles } from './board/stream-files.js'
import { SessionCatalog } from './catalog/session-catalog.js'
import { eventLine } from './file-format.js'
import { errnoOf, persistenceError } from './fs/file-io.js'
import { type FileSystem, NotRegularFileError, nodeFileSystem } from './fs/file-system.js'
import { openSessionFile, visitStored } from './jsonl-open.js'
import type { BodyFile } from './read/body-file.js'
import { SessionWatches } from './read/session-watch.js'
import { liveHolder, releaseLock, takeLock } from './session-lock.js'
import { resolveStoreDir, StorePaths } from './store-paths.js'
import { tidyStore } from './store-tidy.js'
import { SessionWriter, type WriterEnv } from './write/session-writer.js'
import { SlowDiskValve } from './write/slow-disk-valve.js'
import { WriterRegistry } from './writer-registry.js'

export interface JsonlPersistenceConfig {
  /** The store directory (`--store DIR`). Default: {@link resolveStoreDir} of the environment. */
  readonly dir?: string
  /** File operations; tests inject faults here. Default: the real file system. */
  readonly fs?: FileSystem
  /** How young a checkpoint blob is spared when blobs are collected. Default {@link BLOB_GRACE_MS}. */
  readonly blobGraceMs?: number
  /**
   * Bytes a copy of a session's prefix (fork, rewind, cut) writes between two background
   * fdatasyncs (see `copyPrefix`). Default 16 MiB; tests set it low to reach those syncs with small files.
   */
  readonly writebackBytes?: number
}

/**
 * The JSONL backend, service `ctx.persistence`: one `<id>.jsonl` file per session in a 0700
 * directory, written only through the store's lifecycle events. See README.md in this directory
 * for the file format and the durability policy.
 */
export class JsonlPersistence implements SessionPersistence {
  readonly paths: StorePaths
  private readonly fs: FileSystem
  private readonly logger: Logger
  private readonly env: WriterEnv
  private readonly catalog: SessionCatalog
  /** The writers of this process's sessions. */
  private readonly writers: WriterRegistry<SessionWriter>
  /** The files a live session reads the data of its large stored events back from. */
  private readonly bodies = new Map<SessionId, readonly BodyFile[]>()
  /** The file checkpoints' content (`<dir>/blobs`), shared by every session of the store. */
  readonly blobs: BlobDirectory
  /** Collects the blobs no session names any more, after each `remove`. */
  readonly blobCollector: BlobCollector
  /** Who is told when another process changes a live session's file. */
  private readonly watches: SessionWatches
  /** What the processes that have a session open tell each other (presence, questions). */
  readonly board: SessionBoardFiles
  /** What this process's turns stream, passed to the other processes (see `stream-files.ts`). */
  readonly streams: SessionStreamFiles

  constructor(ctx: Context, config: JsonlPersistenceConfig = {}) {
    this.paths = new StorePaths(config.dir ?? resolveStoreDir())
    this.fs = config.fs ?? nodeFileSystem
    this.logger = ctx.logger('persistence')
    this.env = {
      fs: this.fs,
      paths: this.paths,
      fail: (id, error) => {
        this.logger.error(error.message)
        ctx.sessions.fail(id, error)
      },
      warn: (message) => this.logger.warn(message),
      valve: new SlowDiskValve(),
      writebackBytes: config.writebackBytes,
    }
    this.catalog = new SessionCatalog(this.fs, this.paths, this.env.warn)
    this.watches = new SessionWatches(this.fs, this.paths, this.env.warn)
    this.board = new SessionBoardFiles(this.paths, this.env.warn)
    this.streams = new SessionStreamFiles(this.paths, this.env.warn)
    this.blobs = new BlobDirectory(this.paths.blobDir)
    this.blobCollector = new BlobCollector(
      this.blobs,
      this.paths.dir,
      config.blobGraceMs ?? BLOB_GRACE_MS,
      this.env.warn,
    )
    mkdirSync(this.paths.dir, { recursive: true, mode: 0o700 })
    tidyStore(this.paths, this.logger)
    ctx.on('session/created', (session) => this.created(session))
    this.writers = new WriterRegistry(ctx, (message) => this.logger.error(message))
    ctx.on('session/disposed', (session, reason) => this.disposed(session.id, reason))
    ctx.on('session/rewind', async (session, branch, marker) => {
      const writer = this.writers.get(session.id)
      if (!writer) return undefined
      const tail = branch.tail.map((event) => `${eventLine(event)}\n`).join('')
      try {
        return (await writer.rewind(marker.seq - 1, marker, { header: branch.header, tail }))
          ? true
          : undefined
      } finally {
        // Lists look at both files again, whatever the watch reports (a failure may have committed).
        this.catalog.changedHere(session.id)
        this.catalog.changedHere(branch.header.id)
      }
    })
    this.catalog.open()
    ctx.on('dispose', () => {
      this.watches.close()
      this.streams.close()
      this.catalog.close()
      for (const id of this.writers.ids()) this.disposed(id, 'stopped')
    })
  }

  /**
   * Resolves when every queued write, flush and close of every session has finished, and the list's
   * catalog is saved (when it changed).
   */
  async idle(): Promise<void> {
    await Promise.allSettled([this.writers.idle(), this.catalog.saveNow(), this.blobCollector.idle()])
  }

  private created(session: Session): void {
    const { id, header } = session
    const path = this.paths.sessionFile(id)
    if (entryExists(path)) throw alreadyExists(id)
    const lock = this.paths.lockFile(id)
    takeLock(lock, id)
    if (entryExists(path)) {
      releaseLock(lock)
      throw alreadyExists(id)
    }
    const writer = SessionWriter.creating(id, this.env)
    const parent = header.parentSession !== undefined ? this.writers.get(header.parentSession) : undefined
    const inherited = inheritedEventCount(session)
    const prefix = parent?.snapshotPrefix(inherited)
    writer.create(header, session.events(), prefix)
    // The lock guarded the id while the file is made; it is let go once it exists.
    void writer.releasePen()
    this.writers.set(id, writer)
    // A fork child shares its parent's events, and with them the files their data is read from.
    const shared = parent && inherited > 0 ? this.bodies.get(header.parentSession as SessionId) : undefined
    if (shared) {
      for (const body of shared) body.hold(id)
      this.bodies.set(id, shared)
    }
  }

  private disposed(id: SessionId, reason: DisposeReason): void {
    for (const body of this.bodies.get(id) ?? []) {
      body
        .release(id)
        .catch((error) => this.logger.error(`closing a read-back file of ${id}: ${(error as Error).message}`))
    }
    this.bodies.delete(id)
    this.writers.close(id, reason !== 'deleted')
  }

  async open(
    id: SessionId,
    onEvent?: StoredEventListener,
  ): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined> {
    await this.writers.closed(id)
    if (!(await this.exists(id))) return undefined
    return openSessionFile({ env: this.env, writers: this.writers, bodies: this.bodies }, id, onEvent)
  }

  takePen(id: SessionId): SessionEvent[] {
    return this.writerOf(id).takePen()
  }

  /** The pen is a lock file here: taken at once (see `takePen`). */
  async acquirePen(id: SessionId): Promise<SessionEvent[]> {
    return this.takePen(id)
  }

  releasePen(id: SessionId): Promise<void> {
    return this.writers.get(id)?.releasePen() ?? Promise.resolve()
  }

  refresh(id: SessionId): SessionEvent[] {
    return this.writers.get(id)?.refresh() ?? []
  }

  /** The directory watch reports lock files too: a prompt waits for another process's pen. */
  readonly watchesPens = true

  watch(id: SessionId, onChange: () => void): () => void {
    return this.watches.watch(id, onChange)
  }

  private writerOf(id: SessionId): SessionWriter {
    const writer = this.writers.any(id)
    if (!writer) {
      throw new SessionError(SessionErrorCode.SESSION_NOT_LIVE, `session ${id} is not open in this process`, {
        sessionId: id,
      })
    }
    return writer
  }

  visit(id: SessionId, from: number, visit: StoredEventVisitor): Promise<SessionHeader | undefined> {
    return visitStored(this.env, id, from, visit)
  }

  async release(id: SessionId): Promise<void> {
    this.disposed(id, 'closed')
    await this.writers.closed(id)
  }

  async exists(id: SessionId): Promise<boolean> {
    const path = this.paths.sessionFile(id)
    try {
      await this.fs.stat(path)
      return true
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return false
      throw persistenceError(id, 'stat', path, error)
    }
  }

  list(options: ListOptions, live?: (id: SessionId) => SessionSummary | undefined): Promise<SessionPage> {
    return this.catalog.list(options, (id) => this.writers.has(id), live)
  }

  /** Deletes the file and its lock. Refused with `SESSION_LOCKED` while another process writes it. */
  async remove(id: SessionId): Promise<boolean> {
    const path = this.paths.sessionFile(id)
    const lock = this.paths.lockFile(id)
    await this.writers.closed(id)
    const holder = liveHolder(lock)
    if (holder !== undefined || this.writers.has(id)) {
      throw new SessionError(SessionErrorCode.SESSION_LOCKED, `session ${id} is being written`, {
        sessionId: id,
        pid: holder ?? process.pid,
      })
    }
    takeLock(lock, id)
    try {
      const entry = await this.fs.stat(path)
      if (!entry.isFile) throw new NotRegularFileError(path, 'not a regular file')
      await this.fs.unlink(path)
      this.catalog.changedHere(id)
      // A rewind branch's header record goes with it (one left by a crash here, the next start-up removes).
      await this.fs.unlink(this.paths.branchFile(id)).catch((error) => {
        if (errnoOf(error) !== 'ENOENT') throw error
      })
      await this.fs.syncDir(this.paths.dir)
      void this.blobCollector.soon()
      return true
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return false
      throw persistenceError(id, 'unlink', path, error)
    } finally {
      releaseLock(lock)
    }
  }
}

/** Whether anything (a symlink included, dangling or not) has this name. */
function entryExists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false
    throw error
  }
}

function alreadyExists(id: SessionId): SessionError {
  return new SessionError(SessionErrorCode.SESSION_ALREADY_EXISTS, `session ${id} already exists on disk`, {
    sessionId: id,
  })
}

/**
 * The cordis plugin providing `ctx.persistence`. Plug it after the store:
 * `ctx.plugin(sessionsPlugin); ctx.plugin(jsonlPersistencePlugin, { dir })`.
 */
export function jsonlPersistencePlugin(ctx: Context, config: JsonlPersistenceConfig = {}): void {
  ctx.set('persistence', new JsonlPersistence(ctx, config))
}
jsonlPersistencePlugin.inject = ['sessions']
jsonlPersistencePlugin.reusable = false

/** The persistence plugin of the app: the JSONL backend. */
export const persistencePlugin = jsonlPersistencePlugin
