import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { FromSchema } from 'json-schema-to-ts'

/**
 * The JSON schema of the steering and runtime extension methods (no SDK schema has them):
 * `_session/steering` as the clients that call it send it (Caelis, openma, weavie; served by
 * claude-agent-acp, codex-acp and pi-acp), and `_session/runtime/control` / `_session/runtime/read`
 * for the prompts `session/prompt` queued. Published as `schemas/steering.schema.json` (written by
 * scripts/generate-extension-validators.mjs; a test keeps the two equal). Content blocks are the
 * SDK's `ContentBlock`, checked as `session/prompt`'s are once the params are well formed.
 */
export const STEERING_WIRE_SCHEMA = {
  $id: 'https://dsh-acp.dev/schemas/steering.schema.json',
  title: 'dsh-acp steering and queued-prompt extension methods',
  description:
    'Params and results of _session/steering, _session/runtime/control and _session/runtime/read, what initialize advertises for them, and the session/update _meta that shows queued prompts.',
  $defs: {
    sessionId: { type: 'string', minLength: 1 },
    meta: { type: ['object', 'null'] },
    contentBlock: {
      description: 'An ACP ContentBlock (checked against the SDK schema and promptCapabilities after this).',
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string' } },
    },
    steeringParams: {
      description:
        'Steer the running turn with prompt. idleBehavior "promptRequired": when no turn runs, answer promptRequired and start nothing; absent: an idle session starts a turn with the prompt.',
      type: 'object',
      required: ['sessionId', 'prompt'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        prompt: { type: 'array', minItems: 1, items: { $ref: '#/$defs/contentBlock' } },
        idleBehavior: { const: 'promptRequired' },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    steeringResult: {
      oneOf: [
        {
          description:
            'The message waits for the running turn’s next safe point (after the current step’s tool results).',
          type: 'object',
          required: ['outcome'],
          additionalProperties: false,
          properties: { outcome: { const: 'injected' } },
        },
        {
          description: 'No turn runs and idleBehavior asked for this: nothing was started.',
          type: 'object',
          required: ['outcome', 'reason'],
          additionalProperties: false,
          properties: { outcome: { const: 'promptRequired' }, reason: { const: 'noRunningTurn' } },
        },
        {
          description:
            'No turn took it: it runs as a prompt of its own, at once (started) or after the prompts already waiting (queued, with its queued message id).',
          type: 'object',
          required: ['outcome'],
          additionalProperties: false,
          properties: {
            outcome: { enum: ['started', 'queued'] },
            messageId: { type: 'string', minLength: 1 },
          },
        },
      ],
    },
    injectParams: {
      description:
        "acp-factory's Session.inject: message reaches the running turn at its next safe point (as _session/steering), or, when no turn runs, goes before the next prompt's blocks. An empty message is a probe: nothing happens.",
      type: 'object',
      required: ['sessionId', 'message'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        message: { type: 'array', items: { $ref: '#/$defs/contentBlock' } },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    injectResult: {
      description:
        'success: the message was taken; outcome injected (the running turn takes it), held (it goes before the next prompt) or probe (an empty message).',
      type: 'object',
      required: ['success', 'outcome'],
      additionalProperties: false,
      properties: { success: { const: true }, outcome: { enum: ['injected', 'held', 'probe'] } },
    },
    runtimeControlParams: {
      description:
        'cancelQueuedMessage: take back the queued prompt messageId; its session/prompt answers cancelled.',
      type: 'object',
      required: ['sessionId', 'action', 'messageId'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        action: { const: 'cancelQueuedMessage' },
        messageId: { type: 'string', minLength: 1 },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    runtimeControlResult: {
      description:
        'cancelled false: no prompt waits with that id (it ran already, or never was queued here).',
      type: 'object',
      required: ['cancelled'],
      additionalProperties: false,
      properties: { cancelled: { type: 'boolean' } },
    },
    runtimeReadParams: {
      type: 'object',
      required: ['sessionId', 'resource'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        resource: { const: 'queuedMessages' },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    queuedMessage: {
      type: 'object',
      required: ['messageId', 'prompt', 'position'],
      additionalProperties: false,
      properties: {
        messageId: { type: 'string', minLength: 1 },
        prompt: { type: 'array', items: { $ref: '#/$defs/contentBlock' } },
        position: { type: 'integer', minimum: 1 },
      },
    },
    runtimeReadResult: {
      description: 'The prompts waiting, next first (the running turn’s prompt is not one).',
      type: 'object',
      required: ['queuedMessages'],
      additionalProperties: false,
      properties: { queuedMessages: { type: 'array', items: { $ref: '#/$defs/queuedMessage' } } },
    },
    queuedUpdateMeta: {
      description:
        'session_info_update _meta.dsh.queued: a prompt was queued (state queued, its position), left the queue to run (started) or was taken back (cancelled).',
      type: 'object',
      required: ['messageId', 'state'],
      additionalProperties: false,
      properties: {
        messageId: { type: 'string', minLength: 1 },
        state: { enum: ['queued', 'started', 'cancelled'] },
        position: { type: 'integer', minimum: 1 },
      },
    },
    initializeMeta: {
      description: 'What initialize answers in _meta for these methods (other keys are other features’).',
      type: 'object',
      required: ['steering', 'runtime'],
      properties: {
        steering: {
          type: 'object',
          required: ['supported'],
          properties: { supported: { const: true }, method: { const: '_session/steering' } },
        },
        runtime: {
          type: 'object',
          required: ['controlMethod', 'readMethod', 'actions', 'resources'],
          properties: {
            controlMethod: { const: '_session/runtime/control' },
            readMethod: { const: '_session/runtime/read' },
            actions: { type: 'array', items: { const: 'cancelQueuedMessage' } },
            resources: { type: 'array', items: { const: 'queuedMessages' } },
          },
        },
      },
    },
  },
} as const

/** A definition of {@link STEERING_WIRE_SCHEMA}. */
export type SteeringWireDef = keyof (typeof STEERING_WIRE_SCHEMA)['$defs']

type Defs = (typeof STEERING_WIRE_SCHEMA)['$defs']

/** The params of each method, as the schema types them; the generated validators prove them. */
export type SteeringParams = FromSchema<{ $ref: '#/$defs/steeringParams'; $defs: Defs }>
export type InjectParams = FromSchema<{ $ref: '#/$defs/injectParams'; $defs: Defs }>
export type RuntimeControlParams = FromSchema<{ $ref: '#/$defs/runtimeControlParams'; $defs: Defs }>
export type RuntimeReadParams = FromSchema<{ $ref: '#/$defs/runtimeReadParams'; $defs: Defs }>

let ajv: Ajv | undefined
const compiled = new Map<SteeringWireDef, ValidateFunction>()

/** The errors of `value` against definition `def` (empty: valid), as `path: message` (for tests). */
export function steeringWireErrors(def: SteeringWireDef, value: unknown): string[] {
  let validate = compiled.get(def)
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, strict: false })
    if (!ajv.getSchema(STEERING_WIRE_SCHEMA.$id)) ajv.addSchema(STEERING_WIRE_SCHEMA)
    validate = ajv.getSchema(`${STEERING_WIRE_SCHEMA.$id}#/$defs/${def}`) as ValidateFunction
    compiled.set(def, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`,
  )
}
