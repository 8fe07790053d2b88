import type { SessionId } from '../../session/ids.js'
import type { FileSystem } from '../fs/file-system.js'
import type { StorePaths } from '../store-paths.js'
import { type CachedSummary, encodeCatalog, readCatalog, writeCatalog } from './catalog-file.js'

/** How long after a list changed the cache the catalog is saved (unless it changes again). */
const SAVE_DELAY_MS = 1000

/**
 * When the catalog's cache is saved to the store's `.catalog.json`, and reading it back: a little
 * after the last list that changed it, or at once when asked; one save at a time; a failure warned
 * about once per spell of failures (and saved again after the next change).
 */
export class CatalogSaves {
  /** The cache changed since the catalog was last saved or restored. */
  private unsaved = false
  private saveTimer: NodeJS.Timeout | undefined
  /** The catalog save under way, if any (it never rejects). */
  private saving: Promise<void> = Promise.resolve()
  /** The last save failed (and was warned about). */
  private saveFailed = false

  constructor(
    private readonly fs: FileSystem,
    private readonly paths: StorePaths,
    private readonly warn: (message: string) => void,
    /** The entries to save, as they are when a save starts. */
    private readonly entries: () => Iterable<CachedSummary>,
  ) {}

  /** The cache changed: it is saved at the next {@link schedule} or {@link saveNow}. */
  changed(): void {
    this.unsaved = true
  }

  /**
   * The entries of the saved catalog; undefined when there is none, or (with a warning) when it
   * cannot be read or is malformed.
   */
  async read(): Promise<Map<SessionId, CachedSummary> | undefined> {
    try {
      return await readCatalog(this.fs, this.paths)
    } catch (error) {
      this.warn(`list: ignoring the catalog ${this.paths.catalogFile()}: ${(error as Error).message}`)
      return undefined
    }
  }

  /**
   * Saves the catalog now if the cache changed since it was last saved; resolves when no save is
   * under way.
   */
  saveNow(): Promise<void> {
    clearTimeout(this.saveTimer)
    this.saveTimer = undefined
    if (this.unsaved) this.startSave()
    return this.saving
  }

  /**
   * Saves the catalog a little after the last list that changed the cache (the timer does not keep
   * the process alive).
   */
  schedule(): void {
    if (!this.unsaved) return
    clearTimeout(this.saveTimer)
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined
      this.startSave()
    }, SAVE_DELAY_MS)
    this.saveTimer.unref()
  }

  private startSave(): void {
    this.unsaved = false
    const text = encodeCatalog(this.entries())
    this.saving = this.saving.then(() =>
      writeCatalog(this.fs, this.paths, text).then(
        () => {
          this.saveFailed = false
        },
        (error: unknown) => {
          this.unsaved = true
          // Once per failure spell: a read-only store would otherwise warn after every list.
          if (!this.saveFailed) {
            this.warn(`list: could not save the catalog in ${this.paths.dir}: ${(error as Error).message}`)
          }
          this.saveFailed = true
        },
      ),
    )
  }
}
