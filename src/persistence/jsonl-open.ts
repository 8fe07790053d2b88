import type { SessionHeader } from '../session/header.js'
import type { SessionId } from '../session/ids.js'
import type { SessionEvent } from '../session/log/events.js'
import type { StoredEventListener, StoredEventVisitor } from '../session/store/persistence-port.js'
import { errnoOf, persistenceError } from './fs/file-io.js'
import type { OpenFile } from './fs/file-system.js'
import { BodyFile, KEEP_OUT_BYTES } from './read/body-file.js'
import { readAppended } from './read/read-appended.js'
import { readSessionFile, type TailRepair } from './read/read-session-file.js'
import { visitSessionFile } from './read/visit-session-file.js'
import { releaseLock, tryLock } from './session-lock.js'
import { SessionWriter, type WriterEnv } from './write/session-writer.js'
import type { WriterRegistry } from './writer-registry.js'

/** What opening a stored session takes: the store's writer env, and where its writer and read-back files go. */
interface OpenTarget {
  readonly env: WriterEnv
  readonly writers: WriterRegistry<SessionWriter>
  readonly bodies: Map<SessionId, readonly BodyFile[]>
}

/**
 * Opens the stored session `id` (which exists, no writer of it being closed) for this process:
 * reads and checks its file (`onEvent` hears each event), cuts a torn tail the lock proves (see
 * `tailRepair`), and registers its writer and the file its large events' data is read back from.
 * Undefined when the file is gone.
 */
export async function openSessionFile(
  target: OpenTarget,
  id: SessionId,
  onEvent?: StoredEventListener,
): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined> {
  const { env, writers, bodies } = target
  const path = env.paths.sessionFile(id)
  let file: OpenFile | undefined
  let body: BodyFile | undefined
  let op = 'open'
  try {
    file = await env.fs.open(path, 'r+')
    // Large event lines are not kept in memory: their data is read back from a file of its own.
    if ((await file.stat()).size >= 2 * KEEP_OUT_BYTES)
      body = new BodyFile(id, path, await env.fs.open(path, 'r'))
    op = 'read'
    let keptOut = false
    const standIn = (event: SessionEvent, offset: number, length: number) => {
      if (!body || length < KEEP_OUT_BYTES) return undefined
      keptOut = true
      return body.standIn(event, offset, length)
    }
    const ino = file.opened?.ino ?? (await file.stat()).ino
    const contents = await readSessionFile(file, path, id, {
      warn: env.warn,
      onEvent,
      standIn,
      repair: tailRepair(env, id),
    })
    writers.setOpened(id, SessionWriter.opened(id, env, { file, contents, ino }))
    if (body && keptOut) {
      body.hold(id)
      bodies.set(id, [body])
    } else await body?.release(id)
    return { header: contents.header, events: contents.events }
  } catch (error) {
    await body?.release(id).catch(() => {})
    await file?.close().catch(() => {})
    if (errnoOf(error) === 'ENOENT') return undefined
    throw persistenceError(id, op, path, error)
  }
}

/**
 * Opening takes no lock, so a torn tail is cut only under the lock (the pen: its writer died, or
 * let go), and only when the file itself proves it then: it still ends where the read found it,
 * and what follows the cut is still no complete event (another process may have cut the tail and
 * written its own lines since). Otherwise the view simply ends at the last complete line.
 */
function tailRepair(env: WriterEnv, id: SessionId): TailRepair {
  const path = env.paths.sessionFile(id)
  const lock = env.paths.lockFile(id)
  return async (file, torn) => {
    if (!tryLock(lock, id)) return
    try {
      const now = readAppended(file, path, torn.cut, torn.nextSeq)
      if (now.end !== torn.end || now.events.length > 0 || now.tornAt !== torn.cut) return
      env.warn(
        `${path}: torn tail (${torn.what}), truncating ${torn.end - torn.cut} bytes at offset ${torn.cut}`,
      )
      await file.truncate(torn.cut)
      await file.datasync()
    } catch (error) {
      // Unprovable (a line that does not fit after the cut): left for the next writer to judge.
      env.warn(`${path}: torn tail left in place: ${(error as Error).message}`)
    } finally {
      releaseLock(lock)
    }
  }
}

/**
 * Goes through the stored session's events with `seq >= from` without opening it for writing (see
 * `SessionPersistence.visit`); undefined when there is no such file. What `visit` throws is passed on as it is.
 */
export async function visitStored(
  env: Pick<WriterEnv, 'fs' | 'paths'>,
  id: SessionId,
  from: number,
  visit: StoredEventVisitor,
): Promise<SessionHeader | undefined> {
  const path = env.paths.sessionFile(id)
  let file: OpenFile | undefined
  // What `visit` throws is its own, passed on as it is; the rest names the file.
  let failure: { error: unknown } | undefined
  const failed = (error: unknown): never => {
    failure = { error }
    throw error
  }
  const heard: StoredEventVisitor = (event, header) => {
    try {
      const more = visit(event, header)
      return typeof more === 'boolean' ? more : more.catch(failed)
    } catch (error) {
      return failed(error)
    }
  }
  try {
    file = await env.fs.open(path, 'r')
    return await visitSessionFile({ file, path, id }, from, heard)
  } catch (error) {
    if (failure) throw failure.error
    if (errnoOf(error) === 'ENOENT') return undefined
    throw persistenceError(id, 'read', path, error)
  } finally {
    await file?.close().catch(() => {})
  }
}
