import { SessionError, SessionErrorCode } from '../errors.js'
import { type CoreEventType, EXTENSION_EVENT_TYPE, isCoreEventType } from './events.js'

type FieldCheck = (value: unknown) => boolean

const positiveInt: FieldCheck = (v) => Number.isSafeInteger(v) && (v as number) >= 1
const nonNegativeNumber: FieldCheck = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0
const string: FieldCheck = (v) => typeof v === 'string'
const nonEmptyString: FieldCheck = (v) => typeof v === 'string' && v.length > 0
const boolean: FieldCheck = (v) => typeof v === 'boolean'
const any: FieldCheck = () => true
const array: FieldCheck = (v) => Array.isArray(v)
const stringArray: FieldCheck = (v) => Array.isArray(v) && v.every((item) => typeof item === 'string')
const stringOrBoolean: FieldCheck = (v) => typeof v === 'string' || typeof v === 'boolean'
const contentBlocks: FieldCheck = (v) =>
  Array.isArray(v) &&
  v.every((b) => typeof b === 'object' && b !== null && !Array.isArray(b) && typeof b.type === 'string')
const usage: FieldCheck = (v) =>
  typeof v === 'object' &&
  v !== null &&
  nonNegativeNumber((v as Record<string, unknown>).inputTokens) &&
  nonNegativeNumber((v as Record<string, unknown>).outputTokens)

export interface EventDataShape {
  readonly required: Readonly<Record<string, FieldCheck>>
  readonly optional?: Readonly<Record<string, FieldCheck>>
}

/** The required and optional `data` fields of each core event type (what {@link assertEventShape} checks). */
export const EVENT_DATA_SHAPES: Readonly<Record<CoreEventType, EventDataShape>> = {
  'turn/start': { required: { turn: positiveInt } },
  'user/message': { required: { turn: positiveInt, content: contentBlocks } },
  'step/start': { required: { turn: positiveInt, step: positiveInt } },
  'assistant/message': {
    required: { turn: positiveInt, step: positiveInt, content: string },
    optional: { thought: string, usage },
  },
  'tool/call': {
    required: {
      turn: positiveInt,
      step: positiveInt,
      callId: nonEmptyString,
      name: nonEmptyString,
      input: any,
    },
    optional: { title: string, kind: string, locations: array },
  },
  'tool/result': {
    required: { turn: positiveInt, step: positiveInt, callId: nonEmptyString, output: any },
    optional: { isError: boolean, content: array },
  },
  'step/end': { required: { turn: positiveInt, step: positiveInt } },
  'turn/end': { required: { turn: positiveInt, reason: nonEmptyString }, optional: { message: string } },
  'session/title': { required: { title: string } },
  'context/note': { required: { text: string } },
  'config/set': { required: { option: nonEmptyString, value: stringOrBoolean } },
  'session/directories': { required: { directories: stringArray } },
}

function invalid(message: string, data: Record<string, unknown>): SessionError {
  return new SessionError(SessionErrorCode.INVALID_EVENT, message, data)
}

/**
 * Checks an event's `type` and the shape of its `data` (required fields present with the right
 * types). Structural rules across events live in the log state machine.
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

function fieldChecks(shape: Readonly<Record<string, FieldCheck>> = {}): FieldChecks {
  return { names: Object.keys(shape), checks: Object.values(shape) }
}

/** {@link EVENT_DATA_SHAPES} as lists, built once. */
const FIELD_CHECKS = {} as Record<CoreEventType, { required: FieldChecks; optional: FieldChecks }>
for (const type of Object.keys(EVENT_DATA_SHAPES) as CoreEventType[]) {
  const shape = EVENT_DATA_SHAPES[type]
  FIELD_CHECKS[type] = { required: fieldChecks(shape.required), optional: fieldChecks(shape.optional) }
}
