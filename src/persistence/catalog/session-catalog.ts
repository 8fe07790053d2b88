import { SessionError } from '../../session/errors.js'
import type { ListOptions, SessionPage, SessionSummary } from '../../session/header.js'
import type { SessionId } from '../../session/ids.js'
import {
  compareByActivity,
  decodeCursor,
  pageSize,
  paginate,
  withLiveSummaries,
} from '../../session/store/reads/paginate.js'
import { errnoOf, persistenceError } from '../fs/file-io.js'
import { type DirectoryWatch, type FileSystem, NotRegularFileError } from '../fs/file-system.js'
import { StorePaths } from '../store-paths.js'
import type { CachedSummary } from './catalog-file.js'
import { CatalogSaves } from './catalog-saves.js'
import { readSummary, sameFile } from './read-summary.js'
import { inParallel, READ_ATTEMPTS, retryDelay, storedSessionIds, sweep } from './store-directory.js'

/** With a watch, every file is still stat'ed again this often (in the background), should an event have been lost. */
const FULL_CHECK_MS = 2000

/**
 * Summaries of stored sessions for `list`, from each file's first bytes (the header line, and the
 * first prompt for a title derived as a live session derives it) and its last line. An in-memory
 * cache keyed by (inode, size, mtime) avoids rereading files that did not change. Where the file
 * system can watch the directory, only files it reported changed are looked at again; in case the
 * kernel dropped an event, every file is also stat'ed again in the background every
 * {@link FULL_CHECK_MS} (lists do not wait for that; those after it read what it found changed).
 * Without a watch each `list` stats every file. Either way it stays correct when other processes write, crash or
 * delete. `title` is what a live session's would be: the last own `session/title` event (searched
 * from the end of the file, and once cached only in the bytes appended since), else the header's,
 * else the one derived from the first prompt.
 */
export class SessionCatalog {
  private readonly cache = new Map<SessionId, CachedSummary>()
  private watch: DirectoryWatch | undefined
  /** Files the watch reported since they were last looked at. */
  private readonly changed = new Set<SessionId>()
  /** When every file was last looked at (readdir and stats); -Infinity: the cache is not trusted. */
  private checkedAll = Number.NEGATIVE_INFINITY
  /** The cached summaries in activity order, rebuilt when the cache changes. */
  private ordered: SessionSummary[] | undefined
  /** Refreshes run one after another, so concurrent lists never read the same file twice. */
  private refreshing: Promise<void> = Promise.resolve()
  /** Whether the saved catalog was read into the cache (once, before the first full check). */
  private restored = false
  /** The saved catalog: read once into the cache, saved after it changed. */
  private readonly saves: CatalogSaves

  constructor(
    private readonly fs: FileSystem,
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
    /** How often every file is stat'ed again while watching (default {@link FULL_CHECK_MS}). */
    private readonly fullCheckMs = FULL_CHECK_MS,
  ) {
    this.saves = new CatalogSaves(fs, paths, warn, () => this.cache.values())
  }

  /** Starts watching the store directory (where the file system can); `close` stops. */
  open(): void {
    if (this.watch || !this.fs.watch) return
    try {
      this.watch = this.fs.watch(
        this.paths.dir,
        (name) => this.heard(name),
        () => {
          this.watch = undefined
          this.checkedAll = Number.NEGATIVE_INFINITY
        },
      )
    } catch (error) {
      this.warn(
        `list: cannot watch ${this.paths.dir} (${(error as Error).message}); every list reads the directory`,
      )
    }
  }

  /** Stops watching, and saves the catalog if the cache changed since it was last saved. */
  close(): void {
    this.watch?.close()
    this.watch = undefined
    this.checkedAll = Number.NEGATIVE_INFINITY
    void this.saveNow()
  }

  /**
   * Saves the catalog now if the cache changed since it was last saved; resolves when no save is
   * under way.
   */
  saveNow(): Promise<void> {
    return this.saves.saveNow()
  }

  /**
   * Reads the catalog a process saved into the empty cache: a new process then stats the files it
   * knows instead of reading them, and reads only those whose (inode, size, mtime) changed. A
   * missing, unreadable or malformed catalog is a cold cache (with a warning unless missing).
   */
  private async restore(): Promise<void> {
    if (this.restored) return
    this.restored = true
    for (const [id, entry] of (await this.saves.read()) ?? []) {
      if (this.cache.has(id)) continue
      Object.freeze(entry.summary)
      this.cache.set(id, entry)
    }
    this.ordered = undefined
  }

  /**
   * This process removed (or replaced) the file of `id`: the cached summary goes now, and the next
   * list looks at the file again, whatever the directory watch reports and whenever it does.
   */
  changedHere(id: SessionId): void {
    this.forget(id)
    this.changed.add(id)
  }

  private heard(name: string | undefined): void {
    const id = name === undefined ? undefined : StorePaths.sessionIdOf(name)
    if (id !== undefined) this.changed.add(id)
    else if (name === undefined) this.checkedAll = Number.NEGATIVE_INFINITY
  }

  /**
   * One page of stored sessions, most recent activity first. `writtenHere(id)` names sessions this
   * process is writing: their files change all the time, so they are not read again while they are
   * written here; `live(id)` gives their current summary, which replaces the stored one and orders
   * them by their current activity. Each page is made afresh; the summaries in it are the
   * catalog's own, frozen.
   */
  list(
    options: ListOptions,
    writtenHere: (id: SessionId) => boolean = () => false,
    live?: (id: SessionId) => SessionSummary | undefined,
  ): Promise<SessionPage> {
    try {
      pageSize(options.limit)
      if (options.cursor !== undefined) decodeCursor(options.cursor)
    } catch (error) {
      return Promise.reject(error)
    }
    const refreshed = this.joinable ?? this.startRefresh(writtenHere)
    return refreshed.then(() => this.pageOf(options, live))
  }

  /** The page of the cache as it is now (see {@link list}). */
  private pageOf(options: ListOptions, live?: (id: SessionId) => SessionSummary | undefined): SessionPage {
    this.ordered ??= [...this.cache.values()].map((c) => c.summary).sort(compareByActivity)
    return paginate(live ? withLiveSummaries(this.ordered, live) : this.ordered, options, true)
  }

  /**
   * A refresh that lists asked for before its first loop turn ended may share: the changes they
   * must see are all reported by its second turn.
   */
  private joinable: Promise<void> | undefined

  private startRefresh(writtenHere: (id: SessionId) => boolean): Promise<void> {
    const previous = this.refreshing
    const refreshed = (async () => {
      if (this.watch) {
        // Two turns of the event loop: every change made before this list was asked for has been
        // reported by then (the kernel queues the event before the write returns; the loop reads
        // it in the poll phase of the next turn at the latest).
        await nextTurn()
        this.joinable = undefined
        await nextTurn()
      }
      await previous
      await this.refresh(writtenHere)
      this.saves.schedule()
    })()
    if (this.watch) this.joinable = refreshed
    this.refreshing = refreshed.catch(() => {})
    return refreshed
  }

  private async refresh(writtenHere: (id: SessionId) => boolean): Promise<void> {
    if (!this.watch || this.checkedAll === Number.NEGATIVE_INFINITY) {
      await this.checkAll()
      return
    }
    if (performance.now() - this.checkedAll > this.fullCheckMs) this.startSweep()
    for (const id of [...this.changed]) {
      if (writtenHere(id) && this.cache.has(id)) continue
      await this.summary(id)
      // Only once read: a list that failed on it reads it again next time.
      this.changed.delete(id)
    }
  }

  /** Whether a sweep runs (at most one at a time). */
  private sweeping = false

  /**
   * Starts a sweep ({@link sweep}) in the background: lists do not wait for it; the lists after it see
   * what it found. If it fails, the next list checks every file itself (and fails as it would).
   */
  private startSweep(): void {
    if (this.sweeping) return
    this.sweeping = true
    const started = performance.now()
    sweep(this.fs, this.paths, this.cache, this.changed).then(
      () => {
        this.sweeping = false
        // Not when the cache stopped being trusted meanwhile (an event without a name, a broken watch).
        if (this.watch && this.checkedAll !== Number.NEGATIVE_INFINITY) this.checkedAll = started
      },
      (error: unknown) => {
        this.sweeping = false
        this.checkedAll = Number.NEGATIVE_INFINITY
        this.warn(`list: background check of ${this.paths.dir} failed: ${(error as Error).message}`)
      },
    )
  }

  /** Reads the directory and stats every session file (reading those that changed). */
  private async checkAll(): Promise<void> {
    await this.restore()
    const started = performance.now()
    this.changed.clear()
    const ids = await storedSessionIds(this.fs, this.paths)
    const present = new Set(ids)
    for (const id of this.cache.keys()) {
      if (!present.has(id)) this.forget(id)
    }
    await inParallel(ids, (id) => this.summary(id))
    if (this.watch) this.checkedAll = started
  }

  private forget(id: SessionId): void {
    if (!this.cache.delete(id)) return
    this.ordered = undefined
    this.saves.changed()
  }

  /**
   * The summary of one stored session; undefined if it vanished, is not a regular file or its
   * header is unreadable (each skipped with a warning: they are no sessions). A file that could
   * not be read (no descriptors left, EIO, EACCES) is retried a few times, then fails the list
   * with `PERSISTENCE_FAILED`: a list never silently leaves a session out.
   */
  async summary(id: SessionId): Promise<SessionSummary | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.readSummaryOf(id)
      } catch (error) {
        const path = this.paths.sessionFile(id)
        if (attempt >= READ_ATTEMPTS) throw persistenceError(id, 'list: read', path, error)
        await retryDelay(attempt)
      }
    }
  }

  /** {@link summary}, once; throws only on a failure to read. */
  private async readSummaryOf(id: SessionId): Promise<SessionSummary | undefined> {
    const path = this.paths.sessionFile(id)
    const cached = this.cache.get(id)
    try {
      if (cached) {
        const stat = await this.fs.stat(path)
        if (sameFile(stat, cached.stat)) return cached.summary
      }
      const file = await this.fs.open(path, 'r')
      try {
        const stat = file.opened ?? (await file.stat())
        const grown = cached && cached.stat.ino === stat.ino ? cached.titles : undefined
        const { summary, titles } = await readSummary({ file, size: stat.size, path, id }, grown)
        this.cache.set(id, { stat, summary, titles })
        this.ordered = undefined
        this.saves.changed()
        return summary
      } finally {
        await file.close()
      }
    } catch (error) {
      this.forget(id)
      if (errnoOf(error) === 'ENOENT') return undefined
      if (error instanceof NotRegularFileError || error instanceof SessionError || !errnoOf(error)) {
        this.warn(`list: skipping ${path}: ${(error as Error).message}`)
        return undefined
      }
      throw error
    }
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
