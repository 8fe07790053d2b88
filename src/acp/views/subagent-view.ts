import type { SubagentLink, SubagentView, TurnOutcome } from '../../agent/types.js'
import {
  CLEAN_TURN_END_REASONS,
  type SessionUpdate,
  type SubagentState,
  subagentProgressUpdate,
} from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ErrorCode } from '../errors.js'
import type { ClientState } from '../method.js'

/** True when the client advertised the unstable `subagents` capability (`{}`; omitted or null: not). */
export function supportsSubagents(client: ClientState | undefined): boolean {
  // Unstable: not in the stable ClientCapabilities type that types the boundary.
  const value = (client?.capabilities as { readonly subagents?: unknown } | undefined)?.subagents
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a view needs from the call that runs the subagent's parent turn. */
type SubagentCall = Pick<CallContext, 'client' | 'notify' | 'clientBridge'>

/**
 * How a turn's subagents are shown, by what the client supports:
 *
 * - With the unstable `subagents` capability: a `subagent_update` on the parent announces the
 *   child (title, the task as description, state `running`) before any of its traffic; then the
 *   child's own `session/update`s go out under its session id, permission requests and `fs/*` name
 *   the child's session, and a last `subagent_update` reports it `idle` with its stop reason.
 * - Without it: nothing names the child's session as a sender. The parent's delegate tool call
 *   gets `tool_call_update`s (`in_progress`) carrying the child's title, its session id
 *   (`_meta.dsh.subagent`) and what it is doing (each tool it calls); permission requests are
 *   asked on the parent's session about the delegate call, titled with the child and what it
 *   wants, the child's own call in `_meta.dsh.subagent`.
 *
 * In both, the parent's delegate call ends with the child's final answer, as any tool call does.
 */
export function openSubagentView(call: SubagentCall, link: SubagentLink): SubagentView {
  const parentUpdate = (update: SessionUpdate) =>
    call.notify({ sessionId: link.parentSessionId, update, _meta: { dsh: { seq: link.seq } } })
  const progress = (text?: string) => parentUpdate(subagentProgressUpdate(link, text))

  if (supportsSubagents(call.client)) {
    parentUpdate(subagentAnnouncement(link))
    progress()
    return {
      sendUpdate: (update, seq) =>
        call.notify({ sessionId: link.sessionId, update, _meta: { dsh: { seq } } }),
      client: call.clientBridge(link.sessionId),
      ended: (outcome: TurnOutcome) => parentUpdate(subagentStateUpdate(link.sessionId, idleState(outcome))),
    }
  }

  progress()
  const titles = new Map<string, string>()
  return {
    sendUpdate: (update) => {
      if (update.sessionUpdate === 'tool_call') {
        const title = typeof update.title === 'string' ? update.title : 'a tool'
        titles.set(String(update.toolCallId), title)
        progress(`Running: ${title}`)
      } else if (update.sessionUpdate === 'tool_call_update') {
        const title = titles.get(String(update.toolCallId)) ?? 'a tool'
        if (update.status === 'completed') progress(`Done: ${title}`)
        else if (update.status === 'failed') progress(`Failed: ${title}`)
      }
    },
    client: call.clientBridge(link.parentSessionId, (request) => ({
      sessionId: link.parentSessionId,
      toolCall: {
        toolCallId: link.callId,
        title: `Subagent ${link.title} (${link.sessionId}): ${request.title}`,
        kind: request.kind,
        status: 'pending',
        rawInput: request.rawInput,
        ...(request.content && { content: [...request.content] }),
        _meta: { dsh: { subagent: { sessionId: link.sessionId, toolCallId: request.toolCallId } } },
      },
    })),
    ended: () => {},
  }
}

/** The `subagent_update` that announces a child: its title, the task as description, `running`. */
export function subagentAnnouncement(child: {
  readonly sessionId: string
  readonly title: string
  readonly task: string
}): SessionUpdate {
  return {
    sessionUpdate: 'subagent_update',
    sessionId: child.sessionId,
    title: child.title,
    description: child.task,
    state: { state: 'running' },
  }
}

/** A `subagent_update` that gives a child's state and leaves the rest as it was. */
export function subagentStateUpdate(sessionId: string, state: SubagentState): SessionUpdate {
  return { sessionUpdate: 'subagent_update', sessionId, state }
}

/** Turn end reasons that have an ACP stop reason of their own (besides `error`). */
const REPORTED_END_REASONS: ReadonlySet<string> = new Set([...CLEAN_TURN_END_REASONS, 'cancelled'])

/**
 * The `idle` state a child's ended turn reports: its stop reason, or `error` with what failed. A
 * turn cut short otherwise (`interrupted` by a crash, `disposed` at shutdown) reports no stop
 * reason (ACP: not reported), its `turn/end` reason in `_meta.dsh.endReason`.
 */
export function idleState(outcome: TurnOutcome): SubagentState {
  if (outcome.error !== undefined) {
    return {
      state: 'idle',
      stopReason: 'error',
      error: { code: ErrorCode.ModelFailed, message: `the model failed: ${outcome.error}` },
    }
  }
  if (!REPORTED_END_REASONS.has(outcome.endReason))
    return { state: 'idle', _meta: { dsh: { endReason: outcome.endReason } } }
  return { state: 'idle', stopReason: outcome.stopReason }
}
