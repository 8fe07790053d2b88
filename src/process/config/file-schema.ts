import { SANDBOX_MODES } from '../../agent/tools/command/sandbox-mode.js'
import { minimumOf } from '../cli/parse-options.js'
import { LOG_LEVEL_NAMES } from '../log-levels.js'

/** The published identifier of the user configuration file's schema. */
export const CONFIG_FILE_SCHEMA_ID = 'https://dsh-acp.dev/schemas/config-file.schema.json'

/** A provider id and the part of a model id before `/`: lowercase, digits, `-` `_` `.`. */
export const PROVIDER_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$'
/** A name of an environment variable. */
const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$'

const integer = <D extends string>(minimum: number, description: D) =>
  ({ type: 'integer', minimum, description }) as const

const PRICE = { type: 'number', minimum: 0 } as const

const MODEL = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'The name the server knows the model by.' },
    title: { type: 'string', minLength: 1, description: 'What the model picker shows. Absent: the name.' },
    contextWindow: integer(1, "The model's context window in tokens (token usage is reported against it)."),
    prices: {
      type: 'object',
      additionalProperties: false,
      required: ['input', 'output'],
      description: 'Prices per million tokens.',
      properties: {
        input: { ...PRICE, description: 'Per million input tokens.' },
        cachedInput: { ...PRICE, description: 'Per million input tokens read from the server’s cache.' },
        output: { ...PRICE, description: 'Per million output tokens.' },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code. Absent: USD.' },
      },
    },
    imageInput: { type: 'boolean', description: 'The model accepts images. Absent: false.' },
    reasoningEffort: {
      enum: ['low', 'medium', 'high'],
      description: "The reasoning effort sent when the session leaves it at 'default'.",
    },
  },
} as const

const PROVIDER = {
  type: 'object',
  additionalProperties: false,
  required: ['baseUrl', 'models'],
  properties: {
    title: { type: 'string', minLength: 1, description: 'What the model picker shows beside its models.' },
    baseUrl: {
      type: 'string',
      pattern: '^https?://',
      description:
        'The OpenAI-compatible API root; /chat/completions is appended (e.g. https://api.deepseek.com/v1).',
    },
    apiKeyEnv: {
      type: 'string',
      pattern: ENV_NAME_PATTERN,
      description:
        'The environment variable holding the API key. Absent, or unset: the key stored for this provider in credentials.json (dsh-acp setup writes it).',
    },
    keyRequired: {
      type: 'boolean',
      description:
        'The server refuses requests without a key (absent: true). false for servers on this machine (Ollama, llama.cpp, vLLM) that need none.',
    },
    models: { type: 'array', minItems: 1, items: MODEL, description: 'The models a session may choose.' },
    disabled: {
      type: 'boolean',
      description:
        'true: its models are not offered (ACP providers/disable writes it; providers/set removes it). Absent: false.',
    },
  },
} as const

const SECRET_PAIR = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'value'],
  properties: {
    name: { type: 'string', minLength: 1 },
    value: { type: 'string' },
    secret: {
      type: 'boolean',
      description:
        "true: mask this value in the server's results although the name does not say key, token, secret, password, auth or credential (header values are always masked).",
    },
  },
} as const

const ROOTS = {
  type: 'boolean',
  description:
    "false: do not offer this server MCP roots (the session's directories). A server such as server-filesystem then keeps the directories given in its args instead of replacing them with the session's. Absent: true.",
} as const

const MCP_SERVER = {
  description:
    'An MCP server, as ACP session/new gives one: stdio (command) or streamable HTTP (type http). A server the client sends with the same name replaces it.',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'command'],
      properties: {
        type: { const: 'stdio' },
        name: { type: 'string', minLength: 1 },
        command: { type: 'string', minLength: 1 },
        args: { type: 'array', items: { type: 'string' } },
        env: { type: 'array', items: SECRET_PAIR },
        roots: ROOTS,
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'name', 'url'],
      properties: {
        type: { const: 'http' },
        name: { type: 'string', minLength: 1 },
        url: { type: 'string', pattern: '^https?://' },
        headers: { type: 'array', items: SECRET_PAIR },
        roots: ROOTS,
      },
    },
  ],
} as const

const LIMITS = {
  type: 'object',
  additionalProperties: false,
  description: 'The limits the command line also sets (a flag overrides the value here).',
  properties: {
    maxSteps: integer(minimumOf('max-steps'), 'Model requests per turn (--max-steps). Default 32.'),
    mcpTimeoutMs: integer(
      minimumOf('mcp-timeout-ms'),
      'MCP servers: ms to start and per call (--mcp-timeout-ms).',
    ),
    maxRetries: integer(
      minimumOf('max-retries'),
      'Retries of 429, 5xx and lost connections (--max-retries).',
    ),
    requestTimeout: integer(
      minimumOf('request-timeout'),
      'Seconds of server silence before failing (--request-timeout).',
    ),
    maxLineBytes: integer(minimumOf('max-line-bytes'), 'Largest accepted message line (--max-line-bytes).'),
    maxSubagents: integer(minimumOf('max-subagents'), 'Delegations of one step at once (--max-subagents).'),
    subagentMaxSteps: integer(
      minimumOf('subagent-max-steps'),
      'Model requests per subagent turn (--subagent-max-steps).',
    ),
    mcpSamplingPerTurn: integer(
      0,
      'Sampling requests (uses of the model) one MCP server may make per turn; later ones are refused and the user told. Default 10; 0 refuses all.',
    ),
  },
} as const

const MODE = {
  enum: ['ask', 'accept-edits', 'read-only'],
  description: 'The mode a new session starts in.',
} as const
const DEFAULT_MODEL = {
  type: 'string',
  pattern: '^[^/]+/.+$',
  description: 'The model a new session starts with, as provider/model (e.g. deepseek/deepseek-chat).',
} as const

/** schemas/config-file.schema.json: `$XDG_CONFIG_HOME/dsh-acp/config.json`. */
export const USER_FILE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: CONFIG_FILE_SCHEMA_ID,
  $comment: 'Generated from src/process/config/file-schema.ts by npm run generate:config.',
  title: 'dsh-acp configuration file',
  description:
    "The user's configuration ($XDG_CONFIG_HOME/dsh-acp/config.json, else ~/.config/dsh-acp/config.json). Command-line flags override it; it overrides the built-in defaults. API keys never go here: they come from the environment variable a provider names or from credentials.json beside this file (mode 0600).",
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    providers: {
      type: 'object',
      description: 'OpenAI-compatible model servers, by id (the part of a model id before /).',
      propertyNames: { pattern: PROVIDER_ID_PATTERN },
      additionalProperties: PROVIDER,
    },
    defaultModel: DEFAULT_MODEL,
    defaultMode: MODE,
    store: {
      type: 'string',
      minLength: 1,
      description:
        'Where sessions are kept (--store): a directory, or a PostgreSQL connection string postgres://user@host:port/database (the password may come from PGPASSWORD). Absent: $DSH_HOME/sessions.',
    },
    mcpServers: { type: 'array', items: MCP_SERVER, description: 'MCP servers offered to every session.' },
    limits: LIMITS,
    sandbox: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { enum: SANDBOX_MODES, description: 'run_command confinement (--sandbox).' },
        network: {
          type: 'boolean',
          description: 'Sandboxed commands reach the network (--sandbox-network).',
        },
        passEnv: {
          type: 'array',
          items: { type: 'string', pattern: ENV_NAME_PATTERN },
          description:
            "Variables of the agent's environment run_command's commands also see, sandboxed or not, besides PATH, HOME, USER, LOGNAME, SHELL, TERM, COLORTERM, LANG, LANGUAGE, LC_*, TZ and TMPDIR. Naming one whose name says key, token, secret, password, auth or credential passes it; a provider's apiKeyEnv or a configured MCP server's variable never passes.",
        },
      },
    },
    logLevel: { enum: LOG_LEVEL_NAMES, description: 'How much is logged to stderr (--log-level).' },
  },
} as const

/** The schema npm run generate:config publishes as schemas/config-file.schema.json. */
export function configFileSchema(): typeof USER_FILE_SCHEMA {
  return USER_FILE_SCHEMA
}

/** The identifier of the project file's schema. */
export const PROJECT_FILE_SCHEMA_ID = 'https://dsh-acp.dev/schemas/project-config.schema.json'

/** schemas/project-config.schema.json: `.dsh-acp/config.json` in a project's root. Never keys. */
export const PROJECT_FILE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: PROJECT_FILE_SCHEMA_ID,
  $comment: 'Generated from src/process/config/file-schema.ts by npm run generate:config.',
  title: 'dsh-acp project configuration',
  description:
    "A project's own settings (.dsh-acp/config.json in its root): MCP servers its sessions get and defaults. It overrides the user's file for these and never holds providers or keys.",
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    defaultModel: DEFAULT_MODEL,
    defaultMode: MODE,
    mcpServers: {
      type: 'array',
      items: MCP_SERVER,
      description: "MCP servers offered to this project's sessions.",
    },
    limits: LIMITS,
  },
} as const

/** The schema npm run generate:config publishes as schemas/project-config.schema.json. */
export function projectFileSchema(): typeof PROJECT_FILE_SCHEMA {
  return PROJECT_FILE_SCHEMA
}
