import { REMOTE_OPTION_ROWS } from './remote/remote-option-rows.js'

/**
 * One command-line option of a table (`dsh-acp`'s, `dsh-acp setup`'s): `parseArgs` reads it
 * (`parseOptionsOf`), `--help` lists it (`optionLines`).
 */
export interface OptionRow {
  /** The long form, without `--`. */
  readonly name: string
  readonly type: 'string' | 'boolean'
  readonly short?: string
  /** String options: the value's name in the usage text and in `x-cli` (`--store DIR`). */
  readonly value?: string
  /** String options: what `parseArgs` gives when the option is absent (booleans: false). */
  readonly default?: string
  /** Integer options (given as strings): the smallest value accepted. */
  readonly minimum?: number
  /** String options: may be given several times (`parseArgs` gives the list). */
  readonly multiple?: true
  /** A heading the usage text prints above this option (it starts a group). */
  readonly section?: string
  /** Its description in the usage text, one entry per line; none: not listed. */
  readonly help: readonly string[]
}

/**
 * One option of `dsh-acp [serve|sessions|config]`: besides its row, schemas/config.schema.json
 * names it in `x-cli` under the configuration property it sets (config-schema.ts).
 */
export interface CliOption extends OptionRow {
  /** The configuration property (`CliOptions`) it sets (given-flags.ts checks it is one). */
  readonly sets: string
}

/** The commands given as the first positional argument (absent: serve). */
export const COMMANDS = ['serve', 'sessions', 'config'] as const

/** The options, in the order the usage text lists them. */
export const CLI_OPTIONS = [
  {
    name: 'store',
    type: 'string',
    value: 'STORE',
    help: [
      'session store: a directory (default: $DSH_HOME/sessions,',
      'DSH_HOME defaulting to $XDG_DATA_HOME/dsh-acp) or postgres://URL',
    ],
    sets: 'storeDir',
  },
  {
    name: 'memory',
    type: 'boolean',
    help: ['keep sessions in memory only (nothing is written)'],
    sets: 'storeDir',
  },
  {
    name: 'model',
    type: 'string',
    value: 'NAME',
    default: 'echo',
    help: ['echo (default, offline), script:FILE, or openai'],
    sets: 'model',
  },
  {
    name: 'base-url',
    type: 'string',
    value: 'URL',
    help: ['openai: the chat completions server (e.g. https://api.deepseek.com/v1)'],
    sets: 'baseUrl',
  },
  {
    name: 'model-name',
    type: 'string',
    value: 'NAMES',
    help: [
      'the models a session may choose, comma-separated, the first',
      'the default (openai: required; the key comes from DSH_API_KEY)',
    ],
    sets: 'modelName',
  },
  {
    name: 'image-input',
    type: 'boolean',
    help: ['openai: the models accept images (advertises image prompts)'],
    sets: 'imageInput',
  },
  {
    name: 'context-window',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: [
      "the models' context window in tokens (default: the built-in",
      'table of common models); usage_update and compaction use it',
    ],
    sets: 'contextWindow',
  },
  {
    name: 'price-input',
    type: 'string',
    value: 'P',
    help: [
      'what a million input tokens cost (with --price-output:',
      'usage_update reports the session cost)',
    ],
    sets: 'prices',
  },
  {
    name: 'price-cached-input',
    type: 'string',
    value: 'P',
    help: ['what a million cached input tokens cost (default: --price-input)'],
    sets: 'prices',
  },
  {
    name: 'price-output',
    type: 'string',
    value: 'P',
    help: ['what a million output tokens cost (reasoning included)'],
    sets: 'prices',
  },
  {
    name: 'price-currency',
    type: 'string',
    value: 'CODE',
    help: ['the currency of the prices (default USD)'],
    sets: 'prices',
  },
  {
    name: 'compact-at',
    type: 'string',
    value: 'F',
    help: [
      'compact the conversation before a request estimated above',
      'this fraction of --context-window (default 0.8; off: only /compact)',
    ],
    sets: 'compactAt',
  },
  {
    name: 'max-retries',
    type: 'string',
    value: 'N',
    minimum: 0,
    help: ['openai: retries of 429, 5xx and lost connections (default 3)'],
    sets: 'maxRetries',
  },
  {
    name: 'request-timeout',
    type: 'string',
    value: 'S',
    minimum: 1,
    help: ['openai: seconds of silence from the server before failing (300)'],
    sets: 'requestTimeout',
  },
  {
    name: 'max-steps',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['model requests per turn before it stops (default 32)'],
    sets: 'maxSteps',
  },
  {
    name: 'mcp-timeout-ms',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['MCP servers: time allowed to start, list tools and answer', 'each call (default 60000)'],
    sets: 'mcpTimeoutMs',
  },
  {
    name: 'max-subagents',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['delegations of one step that run at once (default 4)'],
    sets: 'subagents',
  },
  {
    name: 'subagent-max-steps',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['model requests per subagent turn (default: --max-steps)'],
    sets: 'subagents',
  },
  {
    name: 'no-subagents',
    type: 'boolean',
    help: ['do not offer the model the delegate tool'],
    sets: 'subagents',
  },
  {
    name: 'no-fork',
    type: 'boolean',
    help: ['do not serve or advertise session/fork'],
    sets: 'fork',
  },
  {
    name: 'sandbox',
    type: 'string',
    value: 'MODE',
    default: 'auto',
    help: [
      'run_command: auto (default: bubblewrap where it works, else',
      'unconfined, said at start and in each result), bwrap (required)',
      'or off',
    ],
    sets: 'sandbox',
  },
  {
    name: 'sandbox-network',
    type: 'string',
    value: 'MODE',
    default: 'on',
    help: ['sandboxed commands reach the network: on (default) or off'],
    sets: 'sandboxNetwork',
  },
  {
    name: 'protocol',
    type: 'string',
    value: 'VERSION',
    default: 'auto',
    help: [
      'ACP versions served: auto (default: the highest at or below',
      "the client's, v1 or the v2 draft), v1 or v2 (that one alone)",
    ],
    sets: 'protocol',
  },
  {
    name: 'transcript',
    type: 'string',
    value: 'FILE',
    help: ['record every wire message, both directions, one per line'],
    sets: 'transcript',
  },
  {
    name: 'max-line-bytes',
    type: 'string',
    value: 'N',
    minimum: 1024,
    help: ['largest accepted message line (default 32 MiB)'],
    sets: 'maxLineBytes',
  },
  {
    name: 'log-level',
    type: 'string',
    value: 'LEVEL',
    default: 'info',
    help: ['silent, error, info (default) or debug; logs go to stderr'],
    sets: 'logLevel',
  },
  {
    name: 'fake-clock',
    type: 'string',
    value: 'ISO',
    help: ['reproducible transcripts: stamp every event with this time'],
    sets: 'fakeClock',
  },
  {
    name: 'id-prefix',
    type: 'string',
    value: 'PREFIX',
    help: ['reproducible transcripts: mint ids PREFIX1, PREFIX2, ...'],
    sets: 'idPrefix',
  },
  { name: 'help', type: 'boolean', short: 'h', help: ['this text'], sets: 'command' },
  { name: 'version', type: 'boolean', short: 'v', help: ['the version'], sets: 'command' },
  ...REMOTE_OPTION_ROWS,
] as const satisfies readonly CliOption[]

/** One row of the table. */
export type Row = (typeof CLI_OPTIONS)[number]
/** The names of the options that take an integer. */
export type IntegerOptionName = Extract<Row, { minimum: number }>['name']
