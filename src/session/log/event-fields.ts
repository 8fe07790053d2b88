import type { ContentBlock, ToolCallContent, ToolCallLocation } from './acp-shapes.js'
import type { Cost, JsonObject, JsonValue, TokenUsage } from './event-values.js'

/** A JSON Schema node as `schemas/events.schema.json` holds it. */
export type SchemaNode = { readonly [key: string]: JsonValue }

/**
 * One kind of event data field: its JSON Schema (which may `$ref` the shared `#/$defs/<name>` of
 * {@link SHARED_DEFS}), the run-time check of a present value, which accepts exactly what the schema
 * accepts (test/schemas.test.ts holds each check to ajv on its schema), and, type-only, the
 * TypeScript type of an accepted value.
 */
export interface Field<T> {
  readonly schema: SchemaNode
  readonly check: (value: unknown) => boolean
  /** Type-only: never set. */
  readonly type?: T
}

function field<T>(schema: SchemaNode, check: (value: unknown) => boolean): Field<T> {
  return { schema, check }
}

/** The same field, documented. */
export function described<T>(base: Field<T>, description: string): Field<T> {
  return { schema: { description, ...base.schema }, check: base.check }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const isNonNegativeNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0
const isOptionalNonNegativeNumber = (v: unknown) => v === undefined || isNonNegativeNumber(v)
const isNonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0
const isPositiveInt = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1

/**
 * The turn end reasons dsh-acp itself writes. The set of reasons is open: any other non-empty
 * string is a reason too (and says the turn was cut short).
 */
export const KNOWN_TURN_END_REASONS = [
  'completed',
  'cancelled',
  'error',
  'max-tokens',
  'max-turn-requests',
  'refusal',
  'interrupted',
  'disposed',
] as const

/**
 * Why a turn ended. `completed`, `max-tokens`, `max-turn-requests` and `refusal` end a turn cleanly
 * (no open step, no unanswered tool call). Every other reason says the turn was cut short, and may
 * close an open step and unanswered tool calls. The set is open: unknown reasons count as cut short.
 */
export type TurnEndReason = KnownTurnEndReason | (string & {})

/** A reason dsh-acp itself writes (see {@link KNOWN_TURN_END_REASONS}). */
export type KnownTurnEndReason = (typeof KNOWN_TURN_END_REASONS)[number]

/** The schemas the fields share, named in the generated schema's `$defs`. */
export const SHARED_DEFS: Readonly<Record<string, SchemaNode>> = {
  positiveInt: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  contentBlock: {
    description:
      'An ACP content block (text, image, audio, resource_link, resource), kept as the client sent it.',
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string' } },
  },
  tokenUsage: {
    type: 'object',
    required: ['inputTokens', 'outputTokens'],
    properties: {
      inputTokens: { type: 'number', minimum: 0 },
      outputTokens: { type: 'number', minimum: 0 },
      cachedInputTokens: { type: 'number', minimum: 0 },
      reasoningTokens: { type: 'number', minimum: 0 },
    },
  },
  cost: {
    description:
      'An amount of money (or of another unit, e.g. credits): amount in currency (an ISO 4217 code such as USD).',
    type: 'object',
    required: ['amount', 'currency'],
    properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', minLength: 1 } },
  },
  turnEndReason: {
    description:
      'Why a turn ended. completed, max-tokens, max-turn-requests and refusal end it cleanly; every other reason (the known ones below, or any other non-empty string) says it was cut short.',
    anyOf: [{ enum: [...KNOWN_TURN_END_REASONS] }, { type: 'string', minLength: 1 }],
  },
}

export const positiveInt = field<number>({ $ref: '#/$defs/positiveInt' }, isPositiveInt)
/** A whole number >= 0 (a token count). */
export const count = field<number>(
  { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  (v) => Number.isSafeInteger(v) && (v as number) >= 0,
)
export const string = field<string>({ type: 'string' }, (v) => typeof v === 'string')
export const nonEmptyString = field<string>({ type: 'string', minLength: 1 }, isNonEmptyString)
export const boolean = field<boolean>({ type: 'boolean' }, (v) => typeof v === 'boolean')
/** Any JSON value. */
export const json = field<JsonValue>({}, () => true)
export const stringList = field<readonly string[]>(
  { type: 'array', items: { type: 'string' } },
  (v) => Array.isArray(v) && v.every((item) => typeof item === 'string'),
)
export const stringOrBoolean = field<string | boolean>(
  { anyOf: [{ type: 'string' }, { type: 'boolean' }] },
  (v) => typeof v === 'string' || typeof v === 'boolean',
)
export const contentBlocks = field<readonly ContentBlock[]>(
  { type: 'array', items: { $ref: '#/$defs/contentBlock' } },
  (v) => Array.isArray(v) && v.every((b) => isRecord(b) && typeof b.type === 'string'),
)
export const tokenUsage = field<TokenUsage>(
  { $ref: '#/$defs/tokenUsage' },
  (v) =>
    isRecord(v) &&
    isNonNegativeNumber(v.inputTokens) &&
    isNonNegativeNumber(v.outputTokens) &&
    isOptionalNonNegativeNumber(v.cachedInputTokens) &&
    isOptionalNonNegativeNumber(v.reasoningTokens),
)
export const cost = field<Cost>(
  { $ref: '#/$defs/cost' },
  (v) => isRecord(v) && isNonNegativeNumber(v.amount) && isNonEmptyString(v.currency),
)
export const turnEndReason = field<TurnEndReason>({ $ref: '#/$defs/turnEndReason' }, isNonEmptyString)
export const toolCallLocations = field<readonly ToolCallLocation[]>(
  {
    description: 'ACP ToolCallLocations: the files the call touches ({path, line?}).',
    type: 'array',
    items: {
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' }, line: { type: 'integer', minimum: 0 } },
    },
  },
  (v) =>
    Array.isArray(v) &&
    v.every(
      (l) =>
        isRecord(l) &&
        typeof l.path === 'string' &&
        (l.line === undefined || (Number.isInteger(l.line) && (l.line as number) >= 0)),
    ),
)
const TOOL_CALL_CONTENT_TYPES: ReadonlySet<unknown> = new Set(['content', 'diff', 'terminal'])
export const toolCallContents = field<readonly ToolCallContent[]>(
  {
    description: 'ACP ToolCallContent the editor was shown for the result (content, diff, terminal).',
    type: 'array',
    items: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: ['content', 'diff', 'terminal'] } },
    },
  },
  (v) => Array.isArray(v) && v.every((c) => isRecord(c) && TOOL_CALL_CONTENT_TYPES.has(c.type)),
)

/** One entry of a plan (ACP `PlanEntry`, without `_meta`). */
export type PlanEntryData = {
  readonly content: string
  readonly status: 'pending' | 'in_progress' | 'completed'
  readonly priority: 'high' | 'medium' | 'low'
}
const PLAN_STATUSES: ReadonlySet<unknown> = new Set(['pending', 'in_progress', 'completed'])
const PLAN_PRIORITIES: ReadonlySet<unknown> = new Set(['high', 'medium', 'low'])
export const planEntries = field<readonly PlanEntryData[]>(
  {
    description: 'ACP PlanEntries, the whole plan in order: {content, status, priority}.',
    type: 'array',
    items: {
      type: 'object',
      required: ['content', 'status', 'priority'],
      properties: {
        content: { type: 'string', minLength: 1 },
        status: { enum: ['pending', 'in_progress', 'completed'] },
        priority: { enum: ['high', 'medium', 'low'] },
      },
      additionalProperties: false,
    },
  },
  (v) =>
    Array.isArray(v) &&
    v.every(
      (e) =>
        isRecord(e) &&
        isNonEmptyString(e.content) &&
        PLAN_STATUSES.has(e.status) &&
        PLAN_PRIORITIES.has(e.priority) &&
        Object.keys(e).every((key) => key === 'content' || key === 'status' || key === 'priority'),
    ),
)

/** One instructions file (`AGENTS.md`) as a session recorded it for its system prompt. */
export type InstructionFileData = {
  /** Absolute path of the file. */
  readonly path: string
  /** Whose it is: `user` (the user's config directory), `project` (cwd up to the repository root), `directory` (an additional directory). */
  readonly scope: 'user' | 'project' | 'directory'
  /** Its text as the prompt holds it (cut at a character boundary when `cut`). */
  readonly text: string
  /** The file's size in bytes. */
  readonly bytes: number
  /** The text was cut to the instructions' size limit. */
  readonly cut: boolean
}
const INSTRUCTION_SCOPES: ReadonlySet<unknown> = new Set(['user', 'project', 'directory'])
export const instructionFiles = field<readonly InstructionFileData[]>(
  {
    description: 'AGENTS.md files in prompt order (the last one wins): {path, scope, text, bytes, cut}.',
    type: 'array',
    items: {
      type: 'object',
      required: ['path', 'scope', 'text', 'bytes', 'cut'],
      properties: {
        path: { type: 'string' },
        scope: { enum: ['user', 'project', 'directory'] },
        text: { type: 'string' },
        bytes: { type: 'integer', minimum: 0 },
        cut: { type: 'boolean' },
      },
    },
  },
  (v) =>
    Array.isArray(v) &&
    v.every(
      (f) =>
        isRecord(f) &&
        typeof f.path === 'string' &&
        INSTRUCTION_SCOPES.has(f.scope) &&
        typeof f.text === 'string' &&
        Number.isSafeInteger(f.bytes) &&
        (f.bytes as number) >= 0 &&
        typeof f.cut === 'boolean',
    ),
)

/** The data fields of one event type. */
export type Fields = { readonly [name: string]: Field<unknown> }

/** One event type's data: what it means, its required and optional fields. */
export interface EventDefinition {
  readonly description: string
  readonly required: Fields
  readonly optional?: Fields
  /** No fields but the listed ones (`additionalProperties: false`). */
  readonly closed?: boolean
}

type TypeOf<F> = F extends Field<infer T> ? T : never
type Flat<T> = { [K in keyof T]: T[K] } & {}

/** The TypeScript type of the data an {@link EventDefinition} describes. */
export type DataOf<D extends EventDefinition> = Flat<
  { readonly [K in keyof D['required']]: TypeOf<D['required'][K]> } & {
    readonly [K in keyof NonNullable<D['optional']>]?: TypeOf<NonNullable<D['optional']>[K]>
  }
>

/** Whether `data` is what `definition` describes (an extension event's data, read back). */
export function isDataOf(definition: EventDefinition, data: JsonObject): boolean {
  for (const name in definition.required) {
    const value = data[name]
    if (value === undefined || !definition.required[name]?.check(value)) return false
  }
  for (const name in definition.optional) {
    const value = data[name]
    if (value !== undefined && !definition.optional[name]?.check(value)) return false
  }
  if (definition.closed) {
    for (const name in data) {
      if (
        !(name in definition.required) &&
        !(definition.optional !== undefined && name in definition.optional)
      )
        return false
    }
  }
  return true
}
