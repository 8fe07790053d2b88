import type { FromSchema } from 'json-schema-to-ts'
import { SANDBOX_MODES } from '../agent/tools/command/sandbox-mode.js'
import { minimumOf } from './cli/parse-options.js'
import { optionForm } from './cli/usage-text.js'
import { CLI_OPTIONS, type CliOption, COMMANDS } from './cli-options.js'
import { LOG_LEVEL_NAMES } from './log-levels.js'

type Json = { readonly [key: string]: unknown }

/** One property of the parsed configuration (`CliOptions`), as the config schema describes it. */
interface ConfigProperty {
  readonly description: string
  /** Its JSON Schema, without `description`, `default` and `x-cli` (added from this table). */
  readonly schema: Json
  /** What the command line gives when no option sets it. */
  readonly default?: unknown
  /** Always present in a parsed configuration. */
  readonly required?: true
}

const integer = (minimum: number) => ({ type: 'integer', minimum }) as const

/** Every property of the parsed configuration ({@link CliOptions}), in the order the schema lists them. */
const CONFIG_PROPERTIES = {
  command: {
    description:
      'serve ACP on stdin/stdout (what an editor starts), print the stored sessions as a lineage tree, print the effective configuration, or print help or the version.',
    schema: { enum: ['serve', 'sessions', 'config', 'help', 'version'] },
    default: 'serve',
    required: true,
  },
  storeDir: {
    description:
      'The session store: a directory, or a PostgreSQL connection string (postgres://… or postgresql://…; the password may come from PGPASSWORD); null keeps sessions in memory only. Absent: $DSH_HOME/sessions, DSH_HOME defaulting to $XDG_DATA_HOME/dsh-acp.',
    schema: { type: ['string', 'null'] },
  },
  model: {
    description: 'echo (offline, deterministic), script:FILE (a JSON model script) or openai.',
    schema: { type: 'string', anyOf: [{ enum: ['echo', 'openai'] }, { pattern: '^script:.+' }] },
    default: 'echo',
    required: true,
  },
  baseUrl: {
    description: 'openai: the chat completions server.',
    schema: { type: 'string' },
  },
  modelName: {
    description:
      'The models a session may choose (its model config option), comma-separated; the first is the default. openai: required, the API key comes from DSH_API_KEY. echo: default echo.',
    schema: { type: 'string' },
  },
  imageInput: {
    description:
      'openai: the models accept images, so image prompt blocks are advertised (promptCapabilities.image) and sent as image_url parts.',
    schema: { const: true },
  },
  fork: {
    description: 'Serve session/fork and advertise agentCapabilities.sessionCapabilities.fork.',
    schema: { type: 'boolean' },
    default: true,
    required: true,
  },
  subagents: {
    description:
      "The delegate tool (fork-based subagents): false leaves it out; otherwise how many delegations of one step run at once (absent: 4) and how many model requests a subagent's turn may make (absent: maxSteps).",
    schema: {
      oneOf: [
        { const: false },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            maxConcurrent: integer(minimumOf('max-subagents')),
            maxSteps: integer(minimumOf('subagent-max-steps')),
          },
        },
      ],
    },
    default: {},
    required: true,
  },
  sandbox: {
    description:
      'run_command, local commands: auto confines them with bubblewrap where it works and otherwise runs them unconfined (said at start and in each result); bwrap requires the sandbox (commands fail without it); off runs them unconfined.',
    schema: { enum: SANDBOX_MODES },
    default: 'auto',
    required: true,
  },
  sandboxNetwork: {
    description: 'Sandboxed commands may reach the network (false: a network namespace with only loopback).',
    schema: { type: 'boolean' },
    default: true,
    required: true,
  },
  protocol: {
    description:
      'The ACP versions served: auto gives each connection the highest version served at or below the one its initialize asks for (v1, or the v2 draft); v1 serves v1 alone (a v2 client is answered v1); v2 serves v2 alone (a client asking for less gets -32022, unsupported protocol version).',
    schema: { enum: ['auto', 'v1', 'v2'] },
    default: 'auto',
    required: true,
  },
  transcript: {
    description: 'A file that records every wire message, both directions, one {dir, msg} per line.',
    schema: { type: 'string' },
  },
  logLevel: {
    description: 'How much the agent logs (to stderr only).',
    schema: { enum: LOG_LEVEL_NAMES },
    default: 'info',
    required: true,
  },
  maxLineBytes: {
    description: 'The largest accepted message line in bytes. Absent: 32 MiB.',
    schema: integer(minimumOf('max-line-bytes')),
  },
  maxSteps: {
    description: 'Model requests per turn before the turn ends with max_turn_requests. Absent: 32.',
    schema: integer(minimumOf('max-steps')),
  },
  mcpTimeoutMs: {
    description:
      'MCP servers: milliseconds allowed to start and list tools, and for each tool call. Absent: 60000.',
    schema: integer(minimumOf('mcp-timeout-ms')),
  },
  contextWindow: {
    description:
      "Every model's context window in tokens: usage_update.size. Absent: the window the configuration gives per model, else the built-in table of common models (DeepSeek, OpenAI, Qwen, Llama); a model none knows gets no usage_update.",
    schema: integer(minimumOf('context-window')),
  },
  prices: {
    description:
      "Every model's price per million tokens: input, cachedInput (cached input tokens; absent: input), output (reasoning included) and currency (absent: USD). Each step's cost is recorded in the log and usage_update reports the session's cost. Absent: the price the configuration gives per model, else no cost is reported.",
    schema: {
      type: 'object',
      required: ['input', 'output'],
      additionalProperties: false,
      properties: {
        input: { type: 'number', minimum: 0 },
        cachedInput: { type: 'number', minimum: 0 },
        output: { type: 'number', minimum: 0 },
        currency: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,16}$' },
      },
    },
  },
  compactAt: {
    description:
      'Compact the conversation (summarize it with the session model) before a model request estimated above this fraction of contextWindow; false: only /compact and a context-length answer compact. Absent: 0.8.',
    schema: { anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: 1 }, { const: false }] },
  },
  maxRetries: {
    description:
      'openai: how often a 429, 5xx or lost connection is retried before the turn fails. Absent: 3.',
    schema: integer(minimumOf('max-retries')),
  },
  requestTimeout: {
    description:
      'openai: seconds of silence from the server (before the headers or between chunks) before the request fails. Absent: 300.',
    schema: integer(minimumOf('request-timeout')),
  },
  fakeClock: {
    description:
      'Reproducible runs: every time stamp is this instant, in milliseconds since the epoch (given as ISO-8601 on the command line).',
    schema: { type: 'number' },
  },
  idPrefix: {
    description: 'Reproducible runs: session ids are this prefix followed by 1, 2, 3, ...',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' },
  },
  remote: {
    description:
      'Serve ACP on the network (dsh-acp serve --listen, docs/remote.md) instead of stdio: where (listen; absent with rotateToken: only make a new token), TLS, the web origins allowed, the bearer token file and the limits. Absent: stdio.',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['behindTlsProxy', 'allowedOrigins', 'rotateToken', 'limits'],
      properties: {
        listen: {
          type: 'object',
          additionalProperties: false,
          required: ['host', 'port'],
          properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 0, maximum: 65535 } },
        },
        tls: {
          type: 'object',
          additionalProperties: false,
          required: ['cert', 'key'],
          properties: { cert: { type: 'string' }, key: { type: 'string' } },
        },
        behindTlsProxy: { type: 'boolean' },
        allowedOrigins: { type: 'array', items: { type: 'string' } },
        rotateToken: { type: 'boolean' },
        tokenFile: { type: 'string' },
        limits: {
          type: 'object',
          additionalProperties: false,
          required: [
            'maxConnections',
            'maxSockets',
            'maxMessageBytes',
            'maxBufferedBytes',
            'maxOutputStallMs',
            'keepaliveMs',
            'headersTimeoutMs',
            'retention',
          ],
          properties: {
            maxConnections: integer(minimumOf('max-connections')),
            maxSockets: integer(minimumOf('max-sockets')),
            maxMessageBytes: integer(minimumOf('max-message-bytes')),
            maxBufferedBytes: integer(minimumOf('max-buffered-bytes')),
            maxOutputStallMs: integer(minimumOf('max-output-stall-ms')),
            keepaliveMs: integer(minimumOf('keepalive-ms')),
            headersTimeoutMs: integer(minimumOf('headers-timeout-ms')),
            retention: {
              type: 'object',
              additionalProperties: false,
              required: ['messages', 'seconds', 'bytes'],
              properties: {
                messages: integer(minimumOf('retention-messages')),
                seconds: integer(minimumOf('retention-seconds')),
                bytes: integer(1),
              },
            },
          },
        },
      },
    },
  },
} as const satisfies { readonly [name: string]: ConfigProperty }

type Properties = typeof CONFIG_PROPERTIES
type RequiredName = {
  [K in keyof Properties]: Properties[K] extends { required: true } ? K : never
}[keyof Properties]

/**
 * The configuration of one run as the command line gives it (`parseCli`) and the files complete it
 * (config/resolve.ts): the type json-schema-to-ts infers from the schema of {@link CONFIG_PROPERTIES}.
 */
export type CliOptions = FromSchema<{
  type: 'object'
  additionalProperties: false
  required: RequiredName[]
  properties: { [K in keyof Properties]: Properties[K]['schema'] }
}>

/** The command-line forms that set `property`: the commands, then its options in usage order. */
function formsOf(property: string): string[] {
  const options = (CLI_OPTIONS as readonly CliOption[]).filter((option) => option.sets === property)
  return [...(property === 'command' ? COMMANDS : []), ...options.map(optionForm)]
}

/** schemas/config.schema.json, as scripts/generate-config-schema.mjs writes it. */
export function configSchema(): Json {
  const properties: [string, ConfigProperty][] = Object.entries(CONFIG_PROPERTIES)
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://dsh-acp.dev/schemas/config.schema.json',
    $comment: 'Generated from src/process/cli-options.ts and config-schema.ts by npm run generate:config.',
    title: 'dsh-acp configuration',
    description:
      'The configuration of one dsh-acp run, as parsed from its command line (src/process/cli-args.ts CliOptions; the app builds its AppConfig from it). `x-cli` names the command-line forms that set each property.',
    type: 'object',
    required: properties.filter(([, property]) => property.required).map(([name]) => name),
    additionalProperties: false,
    properties: Object.fromEntries(
      properties.map(([name, property]) => [
        name,
        {
          description: property.description,
          ...property.schema,
          ...(property.default !== undefined && { default: property.default }),
          'x-cli': formsOf(name),
        },
      ]),
    ),
  }
}
