import type { ModelMessage } from '../../session/index.js'
import { contentToText } from '../shared/content-text.js'

/**
 * The summary the offline models (`echo`, `script:`) write when asked to summarize (a request with
 * `purpose: 'summary'`), so tests and snapshots cover compaction: deterministic, made only from
 * what it was given. The request's last message (the summarizing instruction) is left out; an
 * earlier summary is carried over; then the user's messages in order and the tool calls made.
 */
export function deterministicSummary(messages: readonly ModelMessage[]): string {
  const conversation = messages.slice(0, -1)
  const lines = ['Summary of the conversation so far.']
  const earlier = conversation.find((m) => m.role === 'summary')
  if (earlier) lines.push(`Earlier: ${earlier.content.replace(/\s+/g, ' ').trim()}`)
  const asked = conversation.flatMap((m) => (m.role === 'user' ? [contentToText(m.content)] : []))
  if (asked.length > 0) {
    lines.push('The user asked:')
    for (const [i, text] of asked.entries()) lines.push(`${i + 1}. ${JSON.stringify(text)}`)
  }
  const calls = conversation.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.name) : []))
  if (calls.length > 0) lines.push(`Tools called: ${calls.join(', ')}.`)
  return lines.join('\n')
}

/** The summary as the offline models stream it: one line per chunk. */
export function summaryPieces(summary: string): string[] {
  return summary.split(/(?<=\n)/)
}
