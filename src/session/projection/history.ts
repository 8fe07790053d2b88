import { assertNever } from '../../lib/assert-never.js'
import {
  CLEAN_TURN_END_REASONS,
  type ContentBlock,
  type CoreEvent,
  isExtensionEvent,
  type JsonValue,
  type SessionEvent,
} from '../log/events.js'

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
      /**
       * A compaction's summary of the conversation through a closed boundary (`context/compaction`):
       * first in the history, standing for everything it summarized.
       */
      readonly role: 'summary'
      readonly content: string
      /** The user messages of the conversation it summarizes (earlier summaries' included). */
      readonly userMessages: number
    }
  | {
      readonly role: 'tool'
      readonly callId: string
      readonly name: string
      readonly content: JsonValue
      readonly isError: boolean
      /** The images the result showed the editor (its `content`): for a model that takes images. */
      readonly images?: readonly ImageBlock[]
    }

/** An image content block (ACP `ImageContent`). */
type ImageBlock = Extract<ContentBlock, { readonly type: 'image' }>

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
 * The model's message history for a log (pure). A slash command's turn (`turn/start` with
 * `command`) is left out whole: its prompt and answer are no part of the conversation. Per step:
 * one assistant message (its text, thought and tool calls), then one tool message per call in call
 * order. Context notes become
 * system messages. A call that a cut-short turn left unanswered gets a synthetic error result, so
 * strict providers never see a dangling call. After a `context/compaction`, the history is its
 * summary, then the events after the seq it summarizes through (the latest compaction holds). An open step at the end of the log is included as
 * far as it goes (the turn loop is still running it).
 */
export function projectHistory(events: readonly SessionEvent[]): ModelMessage[] {
  return new HistoryProjector().project(events)
}

/**
 * {@link projectHistory} kept up to date as a log grows: `project(events)` equals
 * `projectHistory(events)`, but only folds the events after those it saw last time when `events`
 * extends them (the same event objects at the same places, as an append-only log does); anything
 * else is projected from the start. A model step of a long session then costs its new events, not
 * the whole log (nor a read-back of every large stored body). What it returned before never
 * changes.
 */
export class HistoryProjector {
  private messages: ModelMessage[] = []
  private step: PendingStep | undefined
  private seen = 0
  private lastSeen: SessionEvent | undefined
  /** Inside a slash command's turn (`turn/start` with `command`): none of it is conversation. */
  private inCommand = false

  project(events: readonly SessionEvent[]): ModelMessage[] {
    if (events.length < this.seen || (this.seen > 0 && events[this.seen - 1] !== this.lastSeen)) {
      this.messages = []
      this.step = undefined
      this.seen = 0
      this.inCommand = false
    }
    for (let i = this.seen; i < events.length; i++) {
      const event = events[i] as SessionEvent
      if (event.type === 'context/compaction') this.compacted(events, i, event)
      else this.fold(event)
    }
    this.seen = events.length
    this.lastSeen = events[events.length - 1]
    const history = this.messages.slice()
    if (this.step) pushStep(history, { ...this.step, calls: this.step.calls.slice() })
    return history
  }

  /**
   * Starts over from the summary of the compaction at `index`: the summary, then the events after
   * the seq it summarizes through, up to it (earlier compactions among them are superseded).
   */
  private compacted(events: readonly SessionEvent[], index: number, event: CoreEvent<'context/compaction'>) {
    const { through, summary } = event.data
    this.messages = [
      { role: 'summary', content: summary, userMessages: conversationUserMessages(events, through) },
    ]
    this.step = undefined
    this.inCommand = false
    for (let i = through; i < index; i++) {
      const kept = events[i] as SessionEvent
      if (kept.type !== 'context/compaction') this.fold(kept)
    }
  }

  private fold(event: SessionEvent): void {
    if (isExtensionEvent(event)) return
    if (this.inCommand) {
      if (event.type === 'turn/end') this.inCommand = false
      return
    }
    switch (event.type) {
      case 'user/message':
        this.messages.push({ role: 'user', content: event.data.content })
        break
      case 'context/note':
        this.messages.push({ role: 'system', content: event.data.text })
        break
      case 'step/start':
        this.step = { content: '', thought: '', calls: [], results: new Map() }
        break
      case 'assistant/message':
        if (this.step) {
          this.step.content += event.data.content
          if (event.data.thought !== undefined) this.step.thought += event.data.thought
        }
        break
      case 'tool/call':
        this.step?.calls.push({ id: event.data.callId, name: event.data.name, input: event.data.input })
        break
      case 'tool/result':
        this.step?.results.set(event.data.callId, event)
        break
      case 'step/end':
        this.closeStep()
        break
      case 'turn/end':
        this.closeStep(CLEAN_TURN_END_REASONS.has(event.data.reason) ? undefined : event.data.reason)
        break
      case 'turn/start':
        this.inCommand = event.data.command !== undefined
        break
      case 'session/title':
      case 'config/set':
      case 'session/directories':
      case 'session/archived':
      case 'context/compaction':
        break
      default:
        assertNever(event, 'event')
    }
  }

  private closeStep(cutShortReason?: string): void {
    if (!this.step) return
    pushStep(this.messages, this.step, cutShortReason)
    this.step = undefined
  }
}

/** Appends a step's messages: its assistant message (unless empty), then one tool message per call. */
function pushStep(messages: ModelMessage[], step: PendingStep, cutShortReason?: string): void {
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
      const images = (result.data.content ?? []).flatMap((item) =>
        item.type === 'content' && item.content.type === 'image' ? [item.content] : [],
      )
      messages.push({
        role: 'tool',
        callId: call.id,
        name: call.name,
        content: result.data.output,
        isError: result.data.isError === true,
        ...(images.length > 0 && { images }),
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
}

/** The user messages of the conversation (slash commands' turns left out) in the events through seq `through`. */
function conversationUserMessages(events: readonly SessionEvent[], through: number): number {
  let count = 0
  let inCommand = false
  for (let i = 0; i < through && i < events.length; i++) {
    const event = events[i] as SessionEvent
    if (event.type === 'turn/start') inCommand = event.data.command !== undefined
    else if (event.type === 'user/message' && !inCommand) count++
  }
  return count
}
