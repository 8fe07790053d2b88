import { SessionError, SessionErrorCode } from '../../session/errors.js'
import type { SessionId } from '../../session/ids.js'
import { persistenceError } from '../fs/file-io.js'
import type { OpenFile } from '../fs/file-system.js'
import { copyPrefix } from './prefix-copy.js'
import type { WriterEnv } from './writer-env.js'

const noop = () => {}

/**
 * Replaces session `id`'s file by a copy of its first `size` bytes (a rewind's cut): the bytes are
 * copied from the file at the path, which must still be inode `ino` and hold them, to a temp file
 * (O_EXCL), fdatasynced, renamed over the path, and the directory fsynced. Resolves the new file,
 * open for writing. A session file is never cut in place: another process's view of it (an inode,
 * a size) stays a prefix of that inode for as long as it holds it open, and sees the new inode at
 * its next check (`SESSION_CHANGED`). Throws `PERSISTENCE_FAILED` naming the step, leaving the old
 * file in place (a crash leaves the old file or the new one, each a whole log, and at most a temp
 * file the startup tidy-up removes).
 */
export async function replaceWithPrefix(
  env: Pick<WriterEnv, 'fs' | 'paths' | 'writebackBytes'>,
  id: SessionId,
  ino: number,
  size: number,
): Promise<OpenFile> {
  const { fs, paths } = env
  const path = paths.sessionFile(id)
  const temp = paths.tempFile(id)
  let op = 'open'
  let source: OpenFile | undefined
  let copy: OpenFile | undefined
  let renamed = false
  try {
    source = await fs.open(path, 'r')
    const found = source.opened ?? (await source.stat())
    if (found.ino !== ino || found.size < size) throw changedUnderPen(id, path)
    copy = await fs.open(temp, 'wx', 0o600)
    op = 'write'
    await copyPrefix({ file: source, start: 0, end: size, ends: [] }, copy, 0, {
      writebackBytes: env.writebackBytes,
    })
    op = 'fdatasync'
    await copy.datasync()
    op = 'rename'
    await fs.rename(temp, path)
    renamed = true
    op = 'fsync directory'
    await fs.syncDir(paths.dir)
    return copy
  } catch (error) {
    await copy?.close().catch(noop)
    if (!renamed) await fs.unlink(temp).catch(noop)
    if (error instanceof SessionError) throw error
    throw persistenceError(id, op, renamed ? path : temp, error)
  } finally {
    await source?.close().catch(noop)
  }
}

/** The file is not this writer's view although it holds the pen: a bug or a hand edit; nothing is cut. */
function changedUnderPen(id: SessionId, path: string): SessionError {
  return new SessionError(
    SessionErrorCode.SESSION_CHANGED,
    `session ${id}: its file ${path} is not the one this process holds the pen of: nothing was cut; load it again`,
    { sessionId: id, path },
  )
}
