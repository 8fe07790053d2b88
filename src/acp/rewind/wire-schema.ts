import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { FromSchema } from 'json-schema-to-ts'

/**
 * The JSON schema of the rewind extension methods (they have no SDK schema), from their contract
 * documents: JetBrains AIR's `_session/rewind` (claude-agent-acp `docs/session-rewind-extension.md`)
 * and claude-agent-acp's `_session/rewind` with modes plus `_session/rewind_points`
 * (`docs/rewind-extension.md`). Published as `schemas/rewind.schema.json` (written by
 * scripts/generate-extension-validators.mjs; a test keeps the two equal). Fields marked "dsh" are this agent's additions; the documents' fields keep their shapes.
 */
export const REWIND_WIRE_SCHEMA = {
  $id: 'https://dsh-acp.dev/schemas/rewind.schema.json',
  title: 'dsh-acp rewind extension methods',
  description:
    'Params and results of _session/rewind (two shapes, told apart by beforeMessage or messageId) and _session/rewind_points, and what initialize advertises for them.',
  $defs: {
    sessionId: { type: 'string', minLength: 1 },
    meta: { type: ['object', 'null'] },
    historyPoint: {
      description:
        'A message: its id as its chunks carried it (a :segment:<n> suffix is accepted), the sha256 of its concatenated text blocks, and which occurrence of that fingerprint.',
      type: 'object',
      required: ['messageId'],
      additionalProperties: false,
      properties: {
        messageId: { type: 'string', minLength: 1 },
        messageFingerprint: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
        messageOccurrence: { type: 'integer', minimum: 1 },
      },
    },
    airRewindParams: {
      description:
        'JetBrains AIR: rewind to before the user message beforeMessage (it and everything after it go); resumeAtMessage is the last assistant message kept (required unless beforeMessage is the first prompt).',
      type: 'object',
      required: ['sessionId', 'beforeMessage'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        beforeMessage: { $ref: '#/$defs/historyPoint' },
        resumeAtMessage: { $ref: '#/$defs/historyPoint' },
        interruptIfRunning: { type: 'boolean' },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    airRewindResult: {
      oneOf: [
        {
          type: 'object',
          required: ['rewound', 'sessionId'],
          additionalProperties: false,
          properties: { rewound: { const: true }, sessionId: { $ref: '#/$defs/sessionId' } },
        },
        {
          type: 'object',
          required: ['rewound', 'reason'],
          additionalProperties: false,
          properties: { rewound: { const: false }, reason: { type: 'string', minLength: 1 } },
        },
      ],
    },
    modeRewindParams: {
      description:
        'claude-agent-acp: rewind to before the user message messageId; mode files (the default), conversation or both; dryRun previews.',
      type: 'object',
      required: ['sessionId', 'messageId'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        messageId: { type: 'string', minLength: 1 },
        mode: { enum: ['files', 'conversation', 'both'] },
        dryRun: { type: 'boolean' },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    filesHalf: {
      type: 'object',
      required: ['canRewind', 'filesChanged'],
      additionalProperties: false,
      properties: {
        canRewind: { type: 'boolean' },
        filesChanged: { type: 'array', items: { type: 'string' } },
        insertions: { type: 'integer', minimum: 0 },
        deletions: { type: 'integer', minimum: 0 },
        removed: {
          description: 'dsh: files created after the point, removed.',
          type: 'array',
          items: { type: 'string' },
        },
        conflicts: {
          description: 'dsh: files left as they are, and why.',
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'reason'],
            additionalProperties: false,
            properties: { path: { type: 'string' }, reason: { type: 'string' } },
          },
        },
        commandsRan: {
          description:
            'dsh: run_command or MCP tools ran after the point; what they changed is not restored.',
          type: 'boolean',
        },
        warning: { description: 'dsh: what commandsRan means, in words.', type: 'string' },
        reason: { description: 'dsh: why the file half was refused.', type: 'string' },
      },
    },
    conversationHalf: {
      type: 'object',
      required: ['rewound', 'messagesDropped'],
      additionalProperties: false,
      properties: {
        rewound: { type: 'boolean' },
        messagesDropped: { type: 'integer', minimum: 0 },
        branchSessionId: {
          description: 'dsh: the archived session that keeps what was dropped.',
          $ref: '#/$defs/sessionId',
        },
        reason: { description: 'dsh: why the conversation was not rewound.', type: 'string' },
      },
    },
    modeRewindResult: {
      description: 'Each half is present only when the mode asked for it.',
      type: 'object',
      additionalProperties: false,
      properties: {
        files: { $ref: '#/$defs/filesHalf' },
        conversation: { $ref: '#/$defs/conversationHalf' },
      },
    },
    rewindPointsParams: {
      type: 'object',
      required: ['sessionId'],
      additionalProperties: false,
      properties: { sessionId: { $ref: '#/$defs/sessionId' }, _meta: { $ref: '#/$defs/meta' } },
    },
    rewindPointsResult: {
      type: 'object',
      required: ['points'],
      additionalProperties: false,
      properties: {
        points: {
          type: 'array',
          items: {
            type: 'object',
            required: ['messageId', 'resumeAtMessageId', 'text', 'index'],
            additionalProperties: false,
            properties: {
              messageId: { type: 'string', minLength: 1 },
              resumeAtMessageId: { type: ['string', 'null'] },
              text: { type: 'string' },
              index: { type: 'integer', minimum: 1 },
            },
          },
        },
      },
    },
    initializeMeta: {
      description: 'What initialize answers in _meta for these methods.',
      type: 'object',
      required: ['sessionRewind', 'claudeCode'],
      properties: {
        sessionRewind: {
          type: 'object',
          required: ['version', 'method'],
          properties: {
            version: { const: 1 },
            method: { const: '_session/rewind' },
            sameSession: { type: 'boolean' },
            durable: { type: 'boolean' },
            firstMessage: { type: 'boolean' },
            interruptIfRunning: { type: 'boolean' },
            changesFiles: { type: 'boolean' },
          },
        },
        claudeCode: {
          type: 'object',
          required: ['rewindSession'],
          properties: {
            rewindSession: {
              type: 'object',
              required: ['modes'],
              properties: {
                modes: {
                  type: 'array',
                  items: { enum: ['files', 'conversation', 'both'] },
                  uniqueItems: true,
                },
              },
            },
          },
        },
        jetbrains: {
          type: 'object',
          properties: {
            air: {
              type: 'object',
              required: ['version', 'capabilities'],
              properties: {
                version: { const: 1 },
                capabilities: {
                  type: 'array',
                  items: { type: 'string' },
                  contains: { const: 'sessionRewind' },
                },
              },
            },
          },
        },
      },
    },
  },
} as const

/** A definition of {@link REWIND_WIRE_SCHEMA}. */
export type RewindWireDef = keyof (typeof REWIND_WIRE_SCHEMA)['$defs']

type Defs = (typeof REWIND_WIRE_SCHEMA)['$defs']

/**
 * The params of each method, as the schema types them (json-schema-to-ts); the generated validators
 * (wire-validators.gen.ts, scripts/generate-extension-validators.mjs) prove a value has that type.
 */
export type AirRewindParams = FromSchema<{ $ref: '#/$defs/airRewindParams'; $defs: Defs }>
export type ModeRewindParams = FromSchema<{ $ref: '#/$defs/modeRewindParams'; $defs: Defs }>
export type RewindPointsParams = FromSchema<{ $ref: '#/$defs/rewindPointsParams'; $defs: Defs }>

let ajv: Ajv | undefined
const compiled = new Map<RewindWireDef, ValidateFunction>()

/**
 * The errors of `value` against definition `def` (empty when it is valid), as `path: message`,
 * with the schema compiled on first use (the tests check results and `initialize` with it).
 */
export function rewindWireErrors(def: RewindWireDef, value: unknown): string[] {
  let validate = compiled.get(def)
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, strict: false })
    if (!ajv.getSchema(REWIND_WIRE_SCHEMA.$id)) ajv.addSchema(REWIND_WIRE_SCHEMA)
    validate = ajv.getSchema(`${REWIND_WIRE_SCHEMA.$id}#/$defs/${def}`) as ValidateFunction
    compiled.set(def, validate)
  }
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`,
  )
}
