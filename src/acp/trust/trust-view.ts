import type * as acp from '@agentclientprotocol/sdk'
import { type Notice, noticeUpdate } from '../../agent/index.js'
import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import type { WorkspaceTrustReport } from './trust-wire.js'

/** A session answer with the RFD's `workspaceTrust` when the workspace has something to trust. */
export function withWorkspaceTrust<T extends object>(
  answer: T,
  trust: WorkspaceTrustReport | undefined,
): T & { workspaceTrust?: WorkspaceTrustReport } {
  return trust === undefined ? answer : { ...answer, workspaceTrust: trust }
}

/** The `/trust` command, offered in sessions whose workspace has something to trust. */
export const TRUST_COMMAND: acp.AvailableCommand = {
  name: 'trust',
  description: "Trust this folder's project configuration (its MCP servers and settings), or decline it",
  input: { hint: 'repo | cwd | session | decline (nothing: show the state)' },
}

/**
 * The report for `session`, told to a client that does not handle workspace trust itself when
 * project files were ignored: a `notice` after the answer (an agent message without
 * `session.notices`) saying what and how to trust it.
 */
export function reportTrust(call: CallContext, session: Session): WorkspaceTrustReport | undefined {
  const trust = call.setup.trust.report(session.cwd, session.id)
  if (trust === undefined || trust.details.ignoredPaths.length === 0 || call.view.features.workspaceTrust)
    return trust
  const notice = ignoredNotice(trust)
  const update = noticeUpdate(notice, noticeMarkdown(notice))
  call.afterResponse(() => void call.notify({ sessionId: session.id, update }))
  return trust
}

function ignoredNotice(trust: WorkspaceTrustReport): Notice {
  const { ignoredPaths, repoRoot, cwd } = trust.details
  const choices = [
    ...(repoRoot !== undefined ? [`\`/trust repo\` (the repository ${repoRoot})`] : []),
    `\`/trust cwd\` (${cwd} and below)`,
    '`/trust session` (this session only)',
  ]
  return {
    severity: 'warning',
    title: "dsh-acp ignored this folder's project configuration: the folder is not trusted",
    description: `Not used: ${ignoredPaths.join(', ')} (its MCP servers were not started, its settings do not apply). If you trust this project, type ${choices.join(', ')}, or run \`dsh-acp trust add ${repoRoot ?? cwd}\` in a terminal.`,
  }
}

function noticeMarkdown(notice: Notice): string {
  return `**${notice.title}**\n\n${notice.description ?? ''}\n`
}
