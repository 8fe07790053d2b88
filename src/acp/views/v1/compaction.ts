import type { CompactionUpdate, WireUpdate } from '../../../session/index.js'

/** The title of the `think` tool call a client without `session.compaction` sees while it runs. */
export const COMPACTING_TITLE = 'Compacting the conversation'

/** The title of a finished compaction's fallback tool call: what it saved. */
export function compactedTitle(tokensBefore: number, tokensAfter: number): string {
  return `Compacted the conversation (about ${tokens(tokensBefore)} → ${tokens(tokensAfter)} tokens)`
}

function tokens(n: number): string {
  return n.toLocaleString('en-US')
}

/**
 * A compaction on the ACP v1 wire. With `session.compaction`: `compaction_update` (in_progress,
 * then completed, failed or cancelled) with `compaction_summary_chunk`s between; a replay sends one
 * completed `compaction_update` with the summary. Without it (ACP forbids those updates then): one
 * `tool_call` of kind `think` titled {@link COMPACTING_TITLE}, finished by a `tool_call_update`
 * holding the summary (no chunks); a replay sends the finished `tool_call` at once.
 */
export function compactionOnWire(update: CompactionUpdate, capable: boolean): WireUpdate[] {
  if (update.sessionUpdate === 'compaction_summary_chunk') {
    if (!capable) return []
    const { compactionId, text } = update
    return [{ sessionUpdate: 'compaction_summary_chunk', compactionId, content: textBlock(text) }]
  }
  const { compactionId } = update
  if (update.status === 'in_progress') {
    if (capable) return [{ sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' }]
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: compactionId,
        title: COMPACTING_TITLE,
        kind: 'think',
        status: 'in_progress',
      },
    ]
  }
  if (update.status !== 'completed') {
    if (capable)
      return [
        { sessionUpdate: 'compaction_update', compactionId, status: update.status, error: update.error },
      ]
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: compactionId,
        status: 'failed',
        content: [{ type: 'content', content: textBlock(update.error) }],
      },
    ]
  }
  if (capable) {
    return [
      {
        sessionUpdate: 'compaction_update',
        compactionId,
        status: 'completed',
        summary: [textBlock(update.summary)],
      },
    ]
  }
  const title = compactedTitle(update.tokensBefore, update.tokensAfter)
  const content = [{ type: 'content' as const, content: textBlock(update.summary) }]
  if (update.replayed) {
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: compactionId,
        title,
        kind: 'think',
        status: 'completed',
        content,
      },
    ]
  }
  return [
    { sessionUpdate: 'tool_call_update', toolCallId: compactionId, status: 'completed', title, content },
  ]
}

function textBlock(text: string): { type: 'text'; text: string } {
  return { type: 'text', text }
}
