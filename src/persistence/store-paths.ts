import { randomBytes } from 'node:crypto'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { SessionError, SessionErrorCode } from '../session/errors.js'
import { assertSessionId, type SessionId } from '../session/ids.js'

export const SESSION_FILE_SUFFIX = '.jsonl'
export const BRANCH_SUFFIX = '.branch.json'
const LOCK_SUFFIX = '.lock'
const TEMP_NAME = /\.(\d+)\.[0-9a-f]{12}\.(tmp|stale)$/

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined
}

/** Whether a store location (`--store`, the user file's `store`) names a PostgreSQL database rather than a directory. */
export function isPostgresUrl(store: string): boolean {
  return /^postgres(ql)?:\/\//i.test(store)
}

/**
 * The default store directory: `$DSH_HOME/sessions`, where `DSH_HOME` defaults to
 * `$XDG_DATA_HOME/dsh-acp`, and `XDG_DATA_HOME` (when unset, empty or relative) to
 * `~/.local/share`.
 */
export function resolveStoreDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const dshHome = nonEmpty(env.DSH_HOME)
  if (dshHome !== undefined) return resolve(dshHome, 'sessions')
  const xdg = nonEmpty(env.XDG_DATA_HOME)
  const dataHome = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'share')
  return resolve(dataHome, 'dsh-acp', 'sessions')
}

/**
 * Every path the backend touches, built only from validated session ids, and checked to stay
 * inside the store directory. Throws `INVALID_SESSION_ID` before any path exists.
 */
export class StorePaths {
  readonly dir: string

  constructor(dir: string) {
    this.dir = resolve(dir)
  }

  private inside(name: string): string {
    const path = join(this.dir, name)
    if (resolve(path, '..') !== this.dir) {
      throw new SessionError(
        SessionErrorCode.INVALID_SESSION_ID,
        `path ${path} escapes the store ${this.dir}`,
      )
    }
    return path
  }

  /** `<dir>/blobs`: the file checkpoints' content-addressed blobs. */
  get blobDir(): string {
    return join(this.dir, 'blobs')
  }

  /** `<dir>/<id>.jsonl` */
  sessionFile(id: SessionId): string {
    assertSessionId(id)
    return this.inside(`${id}${SESSION_FILE_SUFFIX}`)
  }

  /** `<dir>/<id>.lock`: holds the writer's pid. */
  lockFile(id: SessionId): string {
    assertSessionId(id)
    return this.inside(`${id}${LOCK_SUFFIX}`)
  }

  /**
   * `<dir>/<id>.branch.json`: the header of a rewind branch whose file is the rewound session's old
   * file (renamed by a link: its own first line names the session it was). See `rewind-link.ts`.
   */
  branchFile(id: SessionId): string {
    assertSessionId(id)
    return this.inside(`${id}${BRANCH_SUFFIX}`)
  }

  /** The branch id of a directory entry that is a branch record, else undefined. */
  static branchIdOf(name: string): SessionId | undefined {
    if (!name.endsWith(BRANCH_SUFFIX) || name.startsWith('.')) return undefined
    const id = name.slice(0, -BRANCH_SUFFIX.length)
    return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : undefined
  }

  /** A fresh temp name `<dir>/.<id>.<pid>.<random>.tmp`; the pid tells startup cleanup whose it is. */
  tempFile(id: SessionId): string {
    assertSessionId(id)
    return this.inside(`.${id}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  }

  /** `<dir>/.catalog.json`: the list's cache of session summaries a process saved (see `catalog-file.ts`). */
  catalogFile(): string {
    return this.inside('.catalog.json')
  }

  /** A fresh temp name for the catalog, `<dir>/.catalog.json.<pid>.<random>.tmp`. */
  catalogTempFile(): string {
    return this.inside(`.catalog.json.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  }

  /** The session id of a directory entry that is a session file, else undefined. */
  static sessionIdOf(name: string): SessionId | undefined {
    if (!name.endsWith(SESSION_FILE_SUFFIX) || name.startsWith('.')) return undefined
    const id = name.slice(0, -SESSION_FILE_SUFFIX.length)
    return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : undefined
  }

  /** The session id of a directory entry that is a session's lock file (its pen), else undefined. */
  static lockIdOf(name: string): SessionId | undefined {
    if (!name.endsWith(LOCK_SUFFIX) || name.startsWith('.')) return undefined
    const id = name.slice(0, -LOCK_SUFFIX.length)
    return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : undefined
  }

  /** The pid that made a temp file of ours (session or lock), from its name, else undefined. */
  static tempOwner(name: string): number | undefined {
    const match = TEMP_NAME.exec(name)
    return match ? Number(match[1]) : undefined
  }
}
