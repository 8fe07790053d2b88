import { CORE_EVENTS, EXTENSION_EVENTS } from './event-definitions.js'
import {
  type DataOf,
  isDataOf,
  KNOWN_TURN_END_REASONS,
  type KnownTurnEndReason,
  type TurnEndReason,
} from './event-fields.js'
import type { JsonObject } from './event-values.js'

export type { InstructionFileData, PlanEntryData } from './event-fields.js'

/**
 * The event vocabulary of a session log. A log is an append-only sequence of `SessionEvent`s whose
 * `seq` starts at 1 and grows by exactly 1. Every event is JSON: what the store holds is exactly
 * what a backend writes and reads back.
 */

/**
 * The ACP shapes events hold, as the SDK types them: `ContentBlock` (a prompt's text, image,
 * audio, resource_link, resource, kept as the client sent it), `ToolCallContent` (content, diff,
 * terminal) and `ToolCallLocation`.
 */
export type { ContentBlock, ToolCallContent, ToolCallLocation } from './acp-shapes.js'
export type { KnownTurnEndReason, TurnEndReason } from './event-fields.js'
export type { Cost, JsonObject, JsonValue, TokenUsage } from './event-values.js'
export { KNOWN_TURN_END_REASONS }

const KNOWN_TURN_END_REASON_SET: ReadonlySet<string> = new Set(KNOWN_TURN_END_REASONS)

export function isKnownTurnEndReason(reason: TurnEndReason): reason is KnownTurnEndReason {
  return KNOWN_TURN_END_REASON_SET.has(reason)
}

export const CLEAN_TURN_END_REASONS: ReadonlySet<string> = new Set([
  'completed',
  'max-tokens',
  'max-turn-requests',
  'refusal',
])

/** The data of each core event type, as {@link CORE_EVENTS} defines it. */
export type EventDataMap = { readonly [T in keyof typeof CORE_EVENTS]: DataOf<(typeof CORE_EVENTS)[T]> }

/** The data of each registered extension event type, as {@link EXTENSION_EVENTS} defines it. */
export type ExtensionEventDataMap = {
  readonly [T in keyof typeof EXTENSION_EVENTS]: DataOf<(typeof EXTENSION_EVENTS)[T]>
}

/** A registered extension event type: one dsh-acp itself writes. */
export type KnownExtensionEventType = keyof ExtensionEventDataMap

export type CoreEventType = keyof EventDataMap

/** A plugin's own log-only event type: `<namespace>:<name>`, e.g. `metrics:sample`. */
export type ExtensionEventType = `${string}:${string}`

export type EventType = CoreEventType | ExtensionEventType

export const CORE_EVENT_TYPES = Object.keys(CORE_EVENTS) as readonly CoreEventType[]

/** The registered extension event types, in registry order. */
export const KNOWN_EXTENSION_EVENT_TYPES = Object.keys(EXTENSION_EVENTS) as readonly KnownExtensionEventType[]

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

/** Whether `event` is an extension (`namespace:name`) event: every event a core fold does not own. */
export function isExtensionEvent(event: SessionEvent): event is ExtensionEvent {
  return !CORE_EVENT_TYPE_SET.has(event.type)
}

/**
 * The data of a registered extension event of type `type`, checked against its definition;
 * undefined when `event` is another type or its data is not what the registry says.
 */
export function extensionData<T extends KnownExtensionEventType>(
  event: SessionEvent,
  type: T,
): ExtensionEventDataMap[T] | undefined {
  if (event.type !== type || !isDataOf(EXTENSION_EVENTS[type], event.data)) return undefined
  return event.data as ExtensionEventDataMap[T]
}
