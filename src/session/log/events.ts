/**
 * The event vocabulary of a session log. A log is an append-only sequence of `SessionEvent`s whose
 * `seq` starts at 1 and grows by exactly 1. Every event is JSON: what the store holds is exactly
 * what a backend writes and reads back.
 */

export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue }
export type JsonObject = { readonly [key: string]: JsonValue }

/** An ACP content block (text, image, audio, resource_link, resource), kept as the client sent it. */
export type ContentBlock = JsonObject & { readonly type: string }

export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedInputTokens?: number
  readonly reasoningTokens?: number
}

/**
 * Why a turn ended. `completed`, `max-tokens`, `max-turn-requests` and `refusal` end a turn cleanly
 * (no open step, no unanswered tool call). Every other reason says the turn was cut short, and may
 * close an open step and unanswered tool calls. The set is open: unknown reasons count as cut short.
 */
export type TurnEndReason =
  | 'completed'
  | 'cancelled'
  | 'error'
  | 'max-tokens'
  | 'max-turn-requests'
  | 'refusal'
  | 'interrupted'
  | 'disposed'
  | (string & {})

export const CLEAN_TURN_END_REASONS: ReadonlySet<string> = new Set([
  'completed',
  'max-tokens',
  'max-turn-requests',
  'refusal',
])

export interface EventDataMap {
  'turn/start': { readonly turn: number }
  'user/message': { readonly turn: number; readonly content: readonly ContentBlock[] }
  'step/start': { readonly turn: number; readonly step: number }
  'assistant/message': {
    readonly turn: number
    readonly step: number
    readonly content: string
    readonly thought?: string
    readonly usage?: TokenUsage
  }
  'tool/call': {
    readonly turn: number
    readonly step: number
    readonly callId: string
    readonly name: string
    readonly input: JsonValue
    readonly title?: string
    readonly kind?: string
    /** ACP `ToolCallLocation`s: the files the call touches. */
    readonly locations?: readonly JsonValue[]
  }
  'tool/result': {
    readonly turn: number
    readonly step: number
    readonly callId: string
    readonly output: JsonValue
    readonly isError?: boolean
    /** ACP `ToolCallContent` the editor was shown for the result (a diff, a terminal, text). */
    readonly content?: readonly JsonValue[]
  }
  'step/end': { readonly turn: number; readonly step: number }
  'turn/end': { readonly turn: number; readonly reason: TurnEndReason; readonly message?: string }
  /** Standalone: the session's title changed. */
  'session/title': { readonly title: string }
  /** Standalone: a note added to the model's context between turns. */
  'context/note': { readonly text: string }
  /**
   * Standalone, anywhere: a session configuration option (`mode`, `model`, `thought_level`, ...)
   * got a new value. The session's current configuration is the last value per option.
   */
  'config/set': { readonly option: string; readonly value: string | boolean }
  /**
   * Standalone, anywhere: the session's additional workspace directories (ACP
   * `additionalDirectories`, absolute) are now these. The last one holds; none: only `cwd`.
   */
  'session/directories': { readonly directories: readonly string[] }
}

export type CoreEventType = keyof EventDataMap

/** A plugin's own log-only event type: `<namespace>:<name>`, e.g. `metrics:sample`. */
export type ExtensionEventType = `${string}:${string}`

export type EventType = CoreEventType | ExtensionEventType

export const CORE_EVENT_TYPES: readonly CoreEventType[] = [
  'turn/start',
  'user/message',
  'step/start',
  'assistant/message',
  'tool/call',
  'tool/result',
  'step/end',
  'turn/end',
  'session/title',
  'context/note',
  'config/set',
  'session/directories',
]

export const EXTENSION_EVENT_TYPE = /^[a-z][a-z0-9-]*:[A-Za-z0-9_./-]+$/

export type CoreEvent<T extends CoreEventType = CoreEventType> = T extends CoreEventType
  ? { readonly seq: number; readonly type: T; readonly time: string; readonly data: EventDataMap[T] }
  : never

export interface ExtensionEvent {
  readonly seq: number
  readonly type: ExtensionEventType
  readonly time: string
  readonly data: JsonObject
}

/** One entry of a session log. Events in a log are deeply frozen: nobody can change them. */
export type SessionEvent = CoreEvent | ExtensionEvent

/** What a caller appends: the store assigns `seq` and `time`. */
export type EventInput<T extends CoreEventType = CoreEventType> = T extends CoreEventType
  ? { readonly type: T; readonly data: EventDataMap[T] }
  : never

export type ExtensionEventInput = { readonly type: ExtensionEventType; readonly data: JsonObject }

export type AnyEventInput = EventInput | ExtensionEventInput

const CORE_EVENT_TYPE_SET: ReadonlySet<string> = new Set(CORE_EVENT_TYPES)

export function isCoreEventType(type: string): type is CoreEventType {
  return CORE_EVENT_TYPE_SET.has(type)
}

function isCoreEvent<T extends CoreEventType>(event: SessionEvent, type: T): event is CoreEvent<T> {
  return event.type === type
}
