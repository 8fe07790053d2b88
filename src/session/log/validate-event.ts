import { SessionError, SessionErrorCode } from '../errors.js'
import { CORE_EVENTS } from './event-definitions.js'
import type { Fields } from './event-fields.js'
import { type CoreEventType, EXTENSION_EVENT_TYPE, isCoreEventType } from './events.js'

type FieldCheck = (value: unknown) => boolean

function invalid(message: string, data: Record<string, unknown>): SessionError {
  return new SessionError(SessionErrorCode.INVALID_EVENT, message, data)
}

/**
 * Checks an event's `type` and the shape of its `data` (required fields present with the right
 * types, as {@link CORE_EVENTS} defines them). Structural rules across events live in the log
 * state machine.
 */
export function assertEventShape(type: unknown, data: unknown): void {
  if (typeof type !== 'string') throw invalid('event type must be a string', { type: typeof type })
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw invalid(`event ${type}: data must be an object`, { type })
  }
  if (!isCoreEventType(type)) {
    if (EXTENSION_EVENT_TYPE.test(type)) return
    throw invalid(
      `unknown event type ${JSON.stringify(type)}: core types are fixed, plugin types are namespace:name`,
      {
        type,
      },
    )
  }
  const { required, optional } = FIELD_CHECKS[type]
  const fields = data as Record<string, unknown>
  for (let i = 0; i < required.names.length; i++) {
    const field = required.names[i] as string
    const value = fields[field]
    if (value === undefined || !(required.checks[i] as FieldCheck)(value)) {
      throw invalid(`event ${type}: data.${field} is missing or has the wrong type`, { type, field })
    }
  }
  for (let i = 0; i < optional.names.length; i++) {
    const field = optional.names[i] as string
    const value = fields[field]
    if (value !== undefined && !(optional.checks[i] as FieldCheck)(value)) {
      throw invalid(`event ${type}: data.${field} has the wrong type`, { type, field })
    }
  }
}

/** A shape's fields as parallel lists (indexed loops: this runs on every append). */
interface FieldChecks {
  readonly names: readonly string[]
  readonly checks: readonly FieldCheck[]
}

function fieldChecks(fields: Fields = {}): FieldChecks {
  const names = Object.keys(fields)
  return { names, checks: names.map((name) => (fields[name] as Fields[string]).check) }
}

/** {@link CORE_EVENTS} as lists, built once. */
const FIELD_CHECKS = {} as Record<CoreEventType, { required: FieldChecks; optional: FieldChecks }>
for (const type of Object.keys(CORE_EVENTS) as CoreEventType[]) {
  const definition: { required: Fields; optional?: Fields } = CORE_EVENTS[type]
  FIELD_CHECKS[type] = {
    required: fieldChecks(definition.required),
    optional: fieldChecks(definition.optional),
  }
}
