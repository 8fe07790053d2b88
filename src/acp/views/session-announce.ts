import type * as acp from '@agentclientprotocol/sdk'
import { SLASH_COMMANDS } from '../../agent/index.js'
import { type Session, titleUpdate } from '../../session/index.js'
import type { CallContext } from '../call-context.js'

/** ACP `AvailableCommand`s: the slash commands every session takes. */
export function availableCommands(): acp.AvailableCommand[] {
  return SLASH_COMMANDS.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.hint !== undefined && { input: { hint: command.hint } }),
  }))
}

/**
 * After the answer of `session/new`, `load`, `resume` or `fork` (clients drop updates for a session
 * they have not been told about): the command list, and the session's title when it has one.
 *
 * `_meta.dsh.seq` is the event an update comes from, as everywhere: the title's is the event that
 * gave it (its `session/title`, or the `user/message` it was derived from). The command list comes
 * from no event (every session has the same), nor does a title from the header (a fork child's or
 * a subagent's, given at creation): those carry no `_meta`.
 */
export function announceSession(call: CallContext, session: Session): void {
  call.afterResponse(() => {
    call.notify({
      sessionId: session.id,
      update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() },
    })
    const title = session.titleOrigin
    if (title === undefined) return
    const update = titleUpdate(title.title, session.updatedAt)
    call.notify(
      title.seq === undefined
        ? { sessionId: session.id, update }
        : { sessionId: session.id, update, _meta: { dsh: { seq: title.seq } } },
    )
  })
}
