import type { ClientBridge, SubagentChannel, SubagentLink } from '../../agent/types.js'
import { type SessionUpdate, subagentProgressUpdate } from '../../session/index.js'
import type { PermissionTarget } from '../client/permission.js'
import type { ViewCall } from './view-call.js'

/** What a subagent's channel needs from the call that runs the subagent's parent turn. */
type SubagentCall = Pick<ViewCall, 'view' | 'notify'> & {
  /** As `CallContext.clientBridge`. */
  clientBridge(sessionId: string, permissionTarget?: PermissionTarget): ClientBridge
}

/**
 * Where a subagent's turn goes, by what the client's view shows (the delegation itself says on the
 * parent, canonically, that the child started and how it ended; the view shows those to clients
 * with subagents):
 *
 * - With the unstable `subagents` capability: the child's own `session/update`s go out under its
 *   session id, and its permission requests and `fs/*` name the child's session.
 * - Without it: nothing names the child's session as a sender. The parent's delegate tool call
 *   gets `tool_call_update`s (`in_progress`) carrying the child's title, its session id
 *   (`_meta.dsh.subagent`) and what it is doing (each tool it calls); permission requests are
 *   asked on the parent's session about the delegate call, titled with the child and what it
 *   wants, the child's own call in `_meta.dsh.subagent`.
 *
 * In both, the parent's delegate call ends with the child's final answer, as any tool call does.
 */
export function openSubagentChannel(call: SubagentCall, link: SubagentLink): SubagentChannel {
  if (call.view.features.subagents) {
    return {
      sendUpdate: (update, seq) =>
        void call.notify({ sessionId: link.sessionId, update, _meta: { dsh: { seq } } }),
      client: call.clientBridge(link.sessionId),
    }
  }
  const progress = (text: string) =>
    void call.notify({
      sessionId: link.parentSessionId,
      update: subagentProgressUpdate(link, text),
      _meta: { dsh: { seq: link.seq } },
    })
  const titles = new Map<string, string>()
  return {
    sendUpdate: (update: SessionUpdate) => {
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
  }
}
