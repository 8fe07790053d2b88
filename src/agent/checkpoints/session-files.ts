import type { Session, SessionStore } from '../../session/index.js'
import type { AllowedRoots } from '../tools/files/confine.js'
import type { ClientBridge } from '../types.js'
import { type CheckpointBlobs, memoryBlobs } from './blob-port.js'
import { type FileCheckpoints, fileCheckpoints } from './recorder.js'
import { restoreSessionFiles } from './restore.js'
import type { FileRestoreReport, FileRestoreRequest } from './restore-contract.js'
import type { EditorFiles } from './restore-io.js'

/**
 * The agent's file checkpoints: what each turn's file tools record (in `blobs`), and the restore
 * that puts files back. A restore writes through the editor of the connection that last ran a turn
 * on the session, when that client offers `fs/write_text_file`; else on the disk.
 */
export class SessionFiles {
  readonly blobs: CheckpointBlobs
  private readonly editors = new Map<string, EditorFiles>()
  /**
   * The directories a restore may act in, per session: those a request named for it (the cwd and
   * additional directories of `session/new`, `load`, `resume` or `fork`, or a session this process
   * created), never those its stored file names alone (a header is data, not authority).
   */
  private readonly workspaces = new Map<string, AllowedRoots>()
  /** The restore running on each session: a second waits for the first (they would interleave). */
  private readonly restoring = new Map<string, Promise<unknown>>()

  constructor(
    private readonly sessions: () => SessionStore,
    blobs: CheckpointBlobs | undefined,
  ) {
    this.blobs = blobs ?? memoryBlobs()
  }

  /** Where the tools of a turn on `session` record their changes. */
  recorder(session: Session): FileCheckpoints {
    return fileCheckpoints(session, this.blobs)
  }

  /** Remembers the editor a turn on the session runs with, for a later restore. */
  ranWith(sessionId: string, client: ClientBridge): void {
    const { readTextFile, writeTextFile } = client
    this.editors.set(sessionId, {
      ...(readTextFile && { readTextFile }),
      ...(writeTextFile && { writeTextFile }),
    })
  }

  /** A request named `roots` (its cwd first, then its additional directories) for the session. */
  openedIn(sessionId: string, roots: AllowedRoots): void {
    this.workspaces.set(sessionId, roots)
  }

  /** Forgets a session that was let go. */
  forget(sessionId: string): void {
    this.editors.delete(sessionId)
    this.workspaces.delete(sessionId)
  }

  /**
   * See {@link restoreSessionFiles}; `editor` overrides the remembered one. Resolves once the
   * events recording the restore's own changes are durable.
   */
  restore(request: FileRestoreRequest, editor?: EditorFiles): Promise<FileRestoreReport> {
    const id = request.session.id
    const previous = this.restoring.get(id) ?? Promise.resolve()
    const next = previous.catch(() => {}).then(() => this.restoreNow(request, editor))
    const settled = next.catch(() => {})
    this.restoring.set(id, settled)
    void settled.then(() => {
      if (this.restoring.get(id) === settled) this.restoring.delete(id)
    })
    return next
  }

  private async restoreNow(request: FileRestoreRequest, editor?: EditorFiles): Promise<FileRestoreReport> {
    const chosen = editor ?? this.editors.get(request.session.id)
    const before = request.session.lastSeq
    const roots = this.workspaces.get(request.session.id)
    const report = await restoreSessionFiles(request, {
      blobs: this.blobs,
      ...(roots && { roots }),
      record: this.recorder(request.session),
      ...(chosen && { editor: chosen }),
      visit: (id, from, visit) => this.sessions().visitEvents(id, from, visit),
    })
    if (request.session.lastSeq !== before) await this.sessions().flush(request.session.id)
    return report
  }
}
