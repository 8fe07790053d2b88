import type * as acp from '@agentclientprotocol/sdk'
import { SLASH_COMMANDS } from '../agent/index.js'
import { type Session, titleUpdate } from '../session/index.js'
import type { MethodCall } from './method.js'

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
 */
export function announceSession(call: MethodCall, session: Session): void {
  call.afterResponse(() => {
    call.notify({
      sessionId: session.id,
      update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() as never },
    })
    const title = session.title
    if (title !== undefined)
      call.notify({ sessionId: session.id, update: titleUpdate(title, session.updatedAt) })
  })
}
