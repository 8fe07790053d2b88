import type { EventDataMap } from '../../session/index.js'
import type { Notice } from '../notices/notice.js'

/**
 * The notice a completed compaction deserves (pure): how much it saved, and, as a warning, that
 * tool outputs had to be left out of the summary request. What it says is no part of the
 * conversation: the log's `context/compaction` event is the record.
 */
export function compactionNotice(data: EventDataMap['context/compaction']): Notice {
  const saved = `about ${count(data.tokensBefore)} → ${count(data.tokensAfter)} tokens`
  const why =
    data.trigger === 'context-length'
      ? 'The model server refused the conversation as too long, so it was summarized and the request retried'
      : data.trigger === 'command'
        ? 'Summarized on /compact'
        : 'It neared the context window, so it was summarized'
  const dropped = [
    data.droppedToolOutputs !== undefined &&
      ` To fit the summary request, the ${data.droppedToolOutputs} oldest tool outputs were left out of it.`,
    data.droppedMessages !== undefined &&
      ` The ${data.droppedMessages} oldest messages had to be left out of it too.`,
  ]
    .filter((part) => part !== false)
    .join('')
  return {
    severity: dropped !== '' ? 'warning' : 'info',
    title: `Conversation compacted (${saved})`,
    description: `${why}; the full history stays in the session.${dropped}`,
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US')
}
