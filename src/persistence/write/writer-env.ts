import type { SessionError } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import type { FileSystem } from '../fs/file-system.js'
import type { StorePaths } from '../store-paths.js'
import type { SlowDiskValve } from './slow-disk-valve.js'

/** What every session writer of a store shares: the file system, the paths, failure reports, the disk valve. */
export interface WriterEnv {
  readonly fs: FileSystem
  readonly paths: StorePaths
  /** Reports a failed write (the store makes the session read-only). */
  readonly fail: (id: SessionId, error: SessionError) => void
  readonly warn: (message: string) => void
  /** Shared by the store's writers, as the disk is. */
  readonly valve: SlowDiskValve
  /** Bytes a prefix copy (fork, rewind, cut) writes between two background fdatasyncs; default `copyPrefix`'s. */
  readonly writebackBytes?: number | undefined
}
