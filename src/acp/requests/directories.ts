import { stat } from 'node:fs/promises'
import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { assertAbsolutePath } from './params.js'

/**
 * ACP `additionalDirectories` of `session/new`, `load`, `resume` or `fork`, checked: each must be
 * an absolute path naming an existing directory (-32602 naming `additionalDirectories[i]`).
 * Undefined when the params leave them out.
 */
export async function checkedDirectories(
  method: string,
  directories: readonly string[] | null | undefined,
): Promise<string[] | undefined> {
  if (directories === undefined || directories === null) return undefined
  const checked: string[] = []
  for (const [index, directory] of directories.entries()) {
    const field = `additionalDirectories[${index}]`
    assertAbsolutePath(method, field, directory)
    const info = await stat(directory).catch(() => undefined)
    if (!info?.isDirectory()) {
      throw ProtocolError.invalidParams(
        `${method}: ${field} ${JSON.stringify(directory)} is not an existing directory`,
        {
          field,
          [field]: directory,
        },
      )
    }
    if (!checked.includes(directory)) checked.push(directory)
  }
  return checked
}

/**
 * Stores the directories with the session (a `session/directories` event, durable before the
 * answer) when they differ from what it holds; `undefined` keeps what it holds.
 */
export async function recordDirectories(
  call: CallContext,
  session: Session,
  directories: readonly string[] | undefined,
): Promise<void> {
  // What this request named is where a restore of the session may act (not what its file names).
  call.agent.files.openedIn(session.id, [session.cwd, ...(directories ?? [])])
  if (directories === undefined) return
  const current = session.additionalDirectories
  if (current.length === directories.length && current.every((d, i) => d === directories[i])) return
  session.append({ type: 'session/directories', data: { directories } })
  await call.sessions.flush(session.id)
}
