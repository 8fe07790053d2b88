import { CORE_EVENTS, EXTENSION_EVENTS } from './event-definitions.js'
import { type EventDefinition, type Fields, type SchemaNode, SHARED_DEFS } from './event-fields.js'
import type { JsonValue } from './events.js'
import { CORE_EVENT_TYPES, EXTENSION_EVENT_TYPE } from './events.js'

/**
 * `schemas/events.schema.json` and the event part of `schemas/session-file.schema.json`, built
 * from the event definitions (scripts/generate-event-schema.mjs writes them; test/schemas.test.ts
 * fails when a committed one differs).
 */

const DESCRIPTION =
  "One event of a session log: { seq, type, time, data }. seq starts at 1 and grows by exactly 1; time is the store clock's ISO-8601 instant. type is a core type (fixed, with the data shape below) or a plugin's own log-only type namespace:name, whose data is any JSON object (the namespaced events dsh-acp itself writes are described below too). Rules across events (turns do not nest, steps live inside an open turn, every tool/result answers an open tool/call, turn/end closes the open turn) are the store's, not this schema's. Limit: an event nests at most 256 objects/arrays deep, the event itself counting as level 1 (the store refuses deeper data before it enters the log)."

function dataSchema(definition: EventDefinition, withDescription: boolean): SchemaNode {
  const properties: Record<string, JsonValue> = {}
  const add = (fields: Fields | undefined) => {
    for (const [name, field] of Object.entries(fields ?? {})) properties[name] = field.schema
  }
  add(definition.required)
  add(definition.optional)
  return {
    ...(withDescription && { description: definition.description }),
    type: 'object',
    required: Object.keys(definition.required),
    ...(definition.closed === true && { additionalProperties: false }),
    properties,
  }
}

function dispatch(type: string, data: SchemaNode): SchemaNode {
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
  return { if: { properties: { type: { const: type } } }, then: { properties: { data } } }
}

function envelope(type: SchemaNode, rules: SchemaNode[], defs?: SchemaNode): SchemaNode {
  return {
    type: 'object',
    required: ['seq', 'type', 'time', 'data'],
    additionalProperties: false,
    properties: {
      seq: { type: 'integer', minimum: 1 },
      type,
      time: { type: 'string', format: 'date-time' },
      data: { type: 'object' },
    },
    allOf: rules,
    ...(defs !== undefined && { $defs: defs }),
  }
}

const pointer = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1')

/** `schemas/events.schema.json`: every core and registered extension event, shared parts in `$defs`. */
export function eventsSchema(): SchemaNode {
  const described: [string, EventDefinition][] = [
    ...Object.entries(CORE_EVENTS),
    ...Object.entries(EXTENSION_EVENTS),
  ]
  const data: Record<string, JsonValue> = {}
  for (const [type, definition] of described) data[type] = dataSchema(definition, true)
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://dsh-acp.dev/schemas/events.schema.json',
    title: 'dsh-acp session event',
    description: DESCRIPTION,
    ...envelope(
      { anyOf: [{ $ref: '#/$defs/coreEventType' }, { $ref: '#/$defs/extensionEventType' }] },
      described.map(([type]) => dispatch(type, { $ref: `#/$defs/data/${pointer(type)}` })),
      {
        coreEventType: {
          description: 'The core event types, in the order of src/session/log/events.ts CORE_EVENT_TYPES.',
          enum: [...CORE_EVENT_TYPES],
        },
        extensionEventType: {
          description:
            "A plugin's own log-only event type, namespace:name (e.g. metrics:sample). Its data is any JSON object; it may stand anywhere between or inside turns.",
          type: 'string',
          pattern: EXTENSION_EVENT_TYPE.source,
        },
        ...SHARED_DEFS,
        data,
      },
    ),
  }
}

/** `node` with every `#/$defs/<shared>` reference replaced by its schema, and no descriptions. */
function inlined(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(inlined)
  if (typeof node !== 'object' || node === null) return node
  const ref = (node as SchemaNode).$ref
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
    const shared = SHARED_DEFS[ref.slice('#/$defs/'.length)]
    if (shared !== undefined) return inlined(shared)
  }
  const out: Record<string, JsonValue> = {}
  for (const [key, value] of Object.entries(node as SchemaNode)) {
    if (key === 'description') continue
    out[key] = key === 'properties' ? inlinedMap(value) : inlined(value)
  }
  return out
}

/** A `properties` map: its keys are names (one may be `description`), its values schemas. */
function inlinedMap(map: JsonValue): JsonValue {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return map
  const out: Record<string, JsonValue> = {}
  for (const [name, schema] of Object.entries(map)) out[name] = inlined(schema)
  return out
}

/** `$defs.event` of `schemas/session-file.schema.json`: the core events, self-contained. */
export function sessionFileEventSchema(): SchemaNode {
  return envelope(
    {
      anyOf: [
        { enum: [...CORE_EVENT_TYPES] },
        {
          type: 'string',
          pattern: EXTENSION_EVENT_TYPE.source,
          description: "a plugin's own event type, namespace:name",
        },
      ],
    },
    Object.entries(CORE_EVENTS).map(([type, definition]) =>
      dispatch(type, inlined(dataSchema(definition, false)) as SchemaNode),
    ),
  )
}
