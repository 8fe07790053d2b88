import type { ContentBlock } from '../../agent/types.js'
import type { Session } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { reconnectMcpServers } from '../requests/mcp-servers.js'
import { type TrustDecision, TrustRefusal, type WorkspaceTrustReport } from './trust-wire.js'

const WORDS: Readonly<Record<string, TrustDecision>> = {
  repo: 'trust_repo',
  cwd: 'trust_cwd',
  session: 'trust_session',
  decline: 'decline',
}

/** The argument of a `/trust` prompt (`''` for none); undefined when the prompt is not `/trust`. */
export function trustCommandArgs(prompt: readonly ContentBlock[]): string | undefined {
  const first = prompt[0]
  if (prompt.length !== 1 || first?.type !== 'text' || typeof first.text !== 'string') return undefined
  const match = /^\s*\/trust(?:\s+([\s\S]*))?$/.exec(first.text)
  return match ? (match[1] ?? '') : undefined
}

/**
 * `/trust [repo | cwd | session | decline]`, for clients that do not call `trust/apply` themselves:
 * takes the decision as `trust/apply` would for this session (its MCP servers reloaded), or with
 * no argument says the folder's state. Answered as an agent message, outside the session's log: a
 * trust decision concerns the folder, not the conversation, and is kept in the user's trust file.
 */
export async function runTrustCommand(call: CallContext, session: Session, args: string): Promise<void> {
  const say = (text: string) =>
    call.notify({
      sessionId: session.id,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    })
  const word = args.trim().toLowerCase()
  if (word === '') return void (await say(describe(call.setup.trust.report(session.cwd, session.id))))
  const decision = WORDS[word]
  if (decision === undefined)
    return void (await say(
      `Usage: /trust [repo | cwd | session | decline]. ${JSON.stringify(word)} is none of them.`,
    ))
  let after: WorkspaceTrustReport
  try {
    after = call.setup.trust.apply(session.cwd, decision, session.id)
  } catch (error) {
    if (error instanceof TrustRefusal) return void (await say(`Not done: ${error.message}.`))
    throw error
  }
  await reconnectMcpServers(call, session)
  await say(describe(after))
}

function describe(trust: WorkspaceTrustReport | undefined): string {
  if (trust === undefined) return 'This folder has no project configuration: nothing waits for trust.'
  const { status, details } = trust
  const state =
    status === 'trusted'
      ? 'This folder is trusted: its project configuration is used.'
      : status === 'session'
        ? 'This folder is trusted for this session only: its project configuration is used until the session ends.'
        : 'This folder is not trusted: its project configuration is not used.'
  const ignored = details.ignoredPaths.length > 0 ? `\nIgnored: ${details.ignoredPaths.join(', ')}.` : ''
  const choices = details.availableDecisions.map((d) => `/trust ${d === 'decline' ? 'decline' : d.slice(6)}`)
  return `${state}${ignored}\nChoices: ${choices.join(', ')}.`
}
