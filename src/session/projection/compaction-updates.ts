import type { SessionUpdate as AcpSessionUpdate } from '@agentclientprotocol/sdk'
import type { EventDataMap } from '../log/events.js'

/**
 * How a compaction is shown, live and in a replay. With `wire` (the client advertised
 * `clientCapabilities.session.compaction`): ACP `compaction_update` (in_progress, then completed,
 * failed or cancelled) with `compaction_summary_chunk`s between, and a replay sends one completed
 * `compaction_update` with the summary. Without it (ACP forbids those updates then): one `tool_call`
 * of kind `think` titled "Compacting the conversation", finished by a `tool_call_update` holding the
 * summary; a replay sends the finished `tool_call` at once.
 */
export type CompactionEnd =
  | {
      readonly status: 'completed'
      readonly summary: string
      readonly tokensBefore: number
      readonly tokensAfter: number
    }
  | { readonly status: 'failed' | 'cancelled'; readonly error: string }

export const COMPACTING_TITLE = 'Compacting the conversation'

/** The title of a finished compaction's fallback tool call: what it saved. */
export function compactedTitle(tokensBefore: number, tokensAfter: number): string {
  return `Compacted the conversation (about ${tokens(tokensBefore)} → ${tokens(tokensAfter)} tokens)`
}

function tokens(n: number): string {
  return n.toLocaleString('en-US')
}

/** The update that opens a compaction. */
export function compactionStarted(compactionId: string, wire: boolean): AcpSessionUpdate {
  if (wire) return { sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' }
  return {
    sessionUpdate: 'tool_call',
    toolCallId: compactionId,
    title: COMPACTING_TITLE,
    kind: 'think',
    status: 'in_progress',
  }
}

/** The update for a piece of the streaming summary (none without `wire`). */
export function compactionChunk(compactionId: string, text: string, wire: boolean): AcpSessionUpdate[] {
  if (!wire || text === '') return []
  return [{ sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text } }]
}

/** The update that ends a compaction, how it ended. */
export function compactionEnded(compactionId: string, end: CompactionEnd, wire: boolean): AcpSessionUpdate {
  if (wire) {
    return end.status === 'completed'
      ? {
          sessionUpdate: 'compaction_update',
          compactionId,
          status: 'completed',
          summary: [textBlock(end.summary)],
        }
      : { sessionUpdate: 'compaction_update', compactionId, status: end.status, error: end.error }
  }
  if (end.status === 'completed') {
    return {
      sessionUpdate: 'tool_call_update',
      toolCallId: compactionId,
      status: 'completed',
      title: compactedTitle(end.tokensBefore, end.tokensAfter),
      content: [{ type: 'content', content: textBlock(end.summary) }],
    }
  }
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: compactionId,
    status: 'failed',
    content: [{ type: 'content', content: textBlock(end.error) }],
  }
}

/** What a replay shows for a recorded (so completed) compaction. */
export function compactionReplayed(
  data: EventDataMap['context/compaction'],
  wire: boolean,
): AcpSessionUpdate {
  if (wire) {
    return {
      sessionUpdate: 'compaction_update',
      compactionId: data.compactionId,
      status: 'completed',
      summary: [textBlock(data.summary)],
    }
  }
  return {
    sessionUpdate: 'tool_call',
    toolCallId: data.compactionId,
    title: compactedTitle(data.tokensBefore, data.tokensAfter),
    kind: 'think',
    status: 'completed',
    content: [{ type: 'content', content: textBlock(data.summary) }],
  }
}

function textBlock(text: string): { type: 'text'; text: string } {
  return { type: 'text', text }
}
