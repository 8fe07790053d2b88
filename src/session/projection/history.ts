import {
  CLEAN_TURN_END_REASONS,
  type ContentBlock,
  type CoreEvent,
  type JsonValue,
  type SessionEvent,
} from '../events.js'

export interface ModelToolCall {
  readonly id: string
  readonly name: string
  readonly input: JsonValue
}

/** Provider-neutral conversation history, derived from a log by {@link projectHistory}. */
export type ModelMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: readonly ContentBlock[] }
  | {
      readonly role: 'assistant'
      readonly content: string
      readonly thought?: string
      readonly toolCalls: readonly ModelToolCall[]
    }
  | {
      readonly role: 'tool'
      readonly callId: string
      readonly name: string
      readonly content: JsonValue
      readonly isError: boolean
    }

interface PendingStep {
  content: string
  thought: string
  calls: ModelToolCall[]
  results: Map<string, CoreEvent<'tool/result'>>
}

/** The result a model sees for a call that a cut-short turn left unanswered. */
export function unansweredCallResult(reason: string): string {
  return `No result: the turn ended (${reason}) before this tool call finished.`
}

/**
 * The model's message history for a log (pure). Per step: one assistant message (its text,
 * thought and tool calls), then one tool message per call in call order. Context notes become
 * system messages. A call that a cut-short turn left unanswered gets a synthetic error result, so
 * strict providers never see a dangling call. An open step at the end of the log is included as
 * far as it goes (the turn loop is still running it).
 */
export function projectHistory(events: readonly SessionEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = []
  let step: PendingStep | undefined

  const closeStep = (cutShortReason?: string) => {
    if (!step) return
    if (step.content !== '' || step.calls.length > 0 || step.thought !== '') {
      messages.push({
        role: 'assistant',
        content: step.content,
        ...(step.thought !== '' && { thought: step.thought }),
        toolCalls: step.calls,
      })
    }
    for (const call of step.calls) {
      const result = step.results.get(call.id)
      if (result) {
        messages.push({
          role: 'tool',
          callId: call.id,
          name: call.name,
          content: result.data.output,
          isError: result.data.isError === true,
        })
      } else if (cutShortReason !== undefined) {
        messages.push({
          role: 'tool',
          callId: call.id,
          name: call.name,
          content: unansweredCallResult(cutShortReason),
          isError: true,
        })
      }
    }
    step = undefined
  }

  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        messages.push({ role: 'user', content: event.data.content })
        break
      case 'context/note':
        messages.push({ role: 'system', content: event.data.text })
        break
      case 'step/start':
        step = { content: '', thought: '', calls: [], results: new Map() }
        break
      case 'assistant/message':
        if (step) {
          step.content += event.data.content
          if (event.data.thought !== undefined) step.thought += event.data.thought
        }
        break
      case 'tool/call':
        step?.calls.push({ id: event.data.callId, name: event.data.name, input: event.data.input })
        break
      case 'tool/result':
        step?.results.set(event.data.callId, event)
        break
      case 'step/end':
        closeStep()
        break
      case 'turn/end':
        closeStep(CLEAN_TURN_END_REASONS.has(event.data.reason) ? undefined : event.data.reason)
        break
      default:
        break
    }
  }
  closeStep()
  return messages
}
