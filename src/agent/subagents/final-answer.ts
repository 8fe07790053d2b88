import { assertNever } from '../../lib/assert-never.js'
import { isKnownTurnEndReason, type Session } from '../../session/index.js'
import type { ToolResult, TurnOutcome } from '../types.js'

/** The text of the last assistant message of the child's latest turn that said anything. */
function lastAnswer(child: Session): string {
  const events = child.events()
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event?.type === 'turn/start') break
    if (event?.type === 'assistant/message' && event.data.content.trim() !== '') return event.data.content
  }
  return ''
}

/**
 * A delegation's result in the parent: the child's final answer when its turn completed; an error
 * result naming the child session and saying how it ended otherwise (with what it said last, if
 * anything).
 */
export function finalAnswer(child: Session, outcome: TurnOutcome): ToolResult {
  const answer = lastAnswer(child)
  const said = answer === '' ? '' : ` Its last message:\n${answer}`
  const reason = outcome.endReason
  const stopped = { output: `Subagent ${child.id} stopped (${reason}).${said}`, isError: true }
  if (!isKnownTurnEndReason(reason)) return stopped
  switch (reason) {
    case 'completed':
      return { output: answer === '' ? `Subagent ${child.id} finished without an answer.` : answer }
    case 'cancelled':
      return { output: `Cancelled: subagent ${child.id} was cancelled before it finished.`, isError: true }
    case 'error':
      return { output: `Subagent ${child.id} failed: ${outcome.error ?? 'error'}.${said}`, isError: true }
    case 'max-turn-requests':
      return {
        output: `Subagent ${child.id} stopped at its step bound without a final answer.${said}`,
        isError: true,
      }
    case 'max-tokens':
    case 'refusal':
    case 'interrupted':
    case 'disposed':
      return stopped
    default:
      return assertNever(reason, 'turn end reason')
  }
}
