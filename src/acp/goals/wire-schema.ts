import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { FromSchema } from 'json-schema-to-ts'

/**
 * The JSON schema of the goal extension (no SDK schema has it): `_session/goal` as claude-agent-acp
 * and codex-acp serve it, what `initialize` advertises, and the goal `session_info_update._meta.goal`
 * shows. Published as `schemas/goal.schema.json` (written by scripts/generate-extension-validators.mjs; a
 * test keeps the two equal).
 */
export const GOAL_WIRE_SCHEMA = {
  $id: 'https://dsh-acp.dev/schemas/goal.schema.json',
  title: 'dsh-acp session goal extension',
  description:
    'Params and result of _session/goal, what initialize advertises for it, and the session_info_update _meta.goal that shows a goal.',
  $defs: {
    sessionId: { type: 'string', minLength: 1 },
    meta: { type: ['object', 'null'] },
    goalParams: {
      description:
        'set: a new active goal (objective required); pause: an active goal stops being worked on; resume: a paused, blocked, limited or complete goal is active again; clear: the goal is gone. A set or resume takes effect at the end of the running turn, or with the next prompt.',
      type: 'object',
      required: ['sessionId', 'action'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        action: { enum: ['set', 'pause', 'resume', 'clear'] },
        objective: { type: 'string', minLength: 1, maxLength: 20000 },
        _meta: { $ref: '#/$defs/meta' },
      },
      oneOf: [
        { properties: { action: { const: 'set' } }, required: ['objective'] },
        { properties: { action: { enum: ['pause', 'resume', 'clear'] } }, not: { required: ['objective'] } },
      ],
    },
    goal: {
      description:
        'A session goal. iterations: the turns worked toward it; lastReason: why its status is what it is (null: none given); createdAt: when it was set (ISO 8601).',
      type: 'object',
      required: ['objective', 'status', 'iterations', 'lastReason', 'createdAt'],
      additionalProperties: false,
      properties: {
        objective: { type: 'string', minLength: 1 },
        status: { enum: ['active', 'paused', 'blocked', 'limited', 'complete'] },
        iterations: { type: 'integer', minimum: 0 },
        lastReason: { type: ['string', 'null'] },
        createdAt: { type: 'string', minLength: 1 },
      },
    },
    goalOrNull: { oneOf: [{ $ref: '#/$defs/goal' }, { type: 'null' }] },
    goalResult: {
      description: 'The goal after the action (null: the session has none).',
      type: 'object',
      required: ['goal'],
      additionalProperties: false,
      properties: { goal: { $ref: '#/$defs/goalOrNull' } },
    },
    goalUpdateMeta: {
      description: 'session_info_update _meta: goal is the session goal now (null: cleared).',
      type: 'object',
      required: ['goal'],
      properties: { goal: { $ref: '#/$defs/goalOrNull' } },
    },
    initializeMeta: {
      description:
        'What initialize answers in _meta for the goal extension (other keys are other features’).',
      type: 'object',
      required: ['goal'],
      properties: {
        goal: {
          type: 'object',
          required: ['version', 'controlMethod', 'actions'],
          additionalProperties: false,
          properties: {
            version: { const: 1 },
            controlMethod: { const: '_session/goal' },
            actions: {
              type: 'array',
              uniqueItems: true,
              items: { enum: ['set', 'pause', 'resume', 'clear'] },
            },
          },
        },
      },
    },
  },
} as const

/** A definition of {@link GOAL_WIRE_SCHEMA}. */
export type GoalWireDef = keyof (typeof GOAL_WIRE_SCHEMA)['$defs']

type Defs = (typeof GOAL_WIRE_SCHEMA)['$defs']

/** `_session/goal`'s params, as the schema types them; the generated validator proves them. */
export type GoalParams = FromSchema<{ $ref: '#/$defs/goalParams'; $defs: Defs }>

let ajv: Ajv | undefined
const compiled = new Map<GoalWireDef, ValidateFunction>()

/** The errors of `value` against definition `def` (empty: valid), as `path: message` (for tests). */
export function goalWireErrors(def: GoalWireDef, value: unknown): string[] {
  let validate = compiled.get(def)
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, strict: false })
    if (!ajv.getSchema(GOAL_WIRE_SCHEMA.$id)) ajv.addSchema(GOAL_WIRE_SCHEMA)
    validate = ajv.getSchema(`${GOAL_WIRE_SCHEMA.$id}#/$defs/${def}`) as ValidateFunction
    compiled.set(def, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`,
  )
}
