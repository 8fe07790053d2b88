import type * as acp from '@agentclientprotocol/sdk'
import { type SlashCommand, sessionUsageUpdate } from '../../agent/index.js'
import { type Session, type SessionUpdateNotification, titleUpdate } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { TRUST_COMMAND } from '../trust/trust-view.js'

/** ACP `AvailableCommand`s: the slash commands every session takes. */
export function availableCommands(commands: readonly SlashCommand[]): acp.AvailableCommand[] {
  return commands.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.hint !== undefined && { input: { hint: command.hint } }),
  }))
}

/**
 * After the answer of `session/new`, `resume` or `fork` (clients drop updates for a session they
 * have not been told about): the command list, the session's title when it has one, and its
 * `usage_update` when its log holds usage and its model's window is known, and, the first time a
 * client that shows notices opens a session, the configuration notices.
 *
 * `_meta.dsh.seq` is the event an update comes from, as everywhere: the title's is the event that
 * gave it (its `session/title`, or the `user/message` it was derived from). The command list comes
 * from no event (every session has the same), nor does a title from the header (a fork child's or
 * a subagent's, given at creation): those carry no `_meta`.
 */
export function announceSession(call: CallContext, session: Session): void {
  call.afterResponse(() => {
    for (const update of announcement(call, session, true)) void call.notify(update)
  })
}

/**
 * `session/load`, after its replay and before its answer (ACP: no update of the loaded session
 * follows the answer; the client knows the session, it is collecting the replay): the command list,
 * a title from the header, which no replayed event shows, and the session's `usage_update` (which
 * the replay does not show step by step: the last one is what the session stands at). A title from an event was replayed
 * with that event and is not sent again. Resolves when the output took them.
 */
export async function announceLoadedSession(call: CallContext, session: Session): Promise<void> {
  for (const update of announcement(call, session, false)) await call.notify(update)
}

function announcement(
  call: CallContext,
  session: Session,
  withEventTitle: boolean,
): SessionUpdateNotification[] {
  // `/trust` is offered where the workspace has something to trust (acp/trust/trust-command.ts).
  const trust = call.setup.trust.report(session.cwd, session.id) === undefined ? [] : [TRUST_COMMAND]
  const updates: SessionUpdateNotification[] = [
    {
      sessionId: session.id,
      update: {
        sessionUpdate: 'available_commands_update',
        availableCommands: [...availableCommands(call.agent.features.commands), ...trust],
      },
    },
  ]
  const title = session.titleOrigin
  // A title is sent when it changes for this client, once (a resume or fork right after another
  // announcement does not repeat it); a load's replay shows it whole.
  if (title !== undefined && !(withEventTitle && call.view.knowsTitle(session.id, title.title))) {
    const update = titleUpdate(title.title, session.updatedAt)
    if (title.seq === undefined) updates.push({ sessionId: session.id, update })
    else if (withEventTitle)
      updates.push({ sessionId: session.id, update, _meta: { dsh: { seq: title.seq } } })
  }
  // Usage is a projection of the log: what the session's context holds and what it cost so far.
  const usage = sessionUsageUpdate(session, call.agent.provider, call.agent.config(session).model)
  if (usage) updates.push({ sessionId: session.id, update: usage, _meta: { dsh: { seq: session.lastSeq } } })
  updates.push(...call.view.configNotices(session.id, call.agent.configNotices))
  return updates
}
