import { parseArgs } from 'node:util'
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

type Row = (typeof CLI_OPTIONS)[number]
/** The names of the options that take an integer. */
export type IntegerOptionName = Extract<Row, { minimum: number }>['name']

/** `parseArgs`'s description of each option of a table: its type, short form and default. */
export type ParseOptions<R extends OptionRow> = {
  readonly [O in R as O['name']]: O extends { type: 'string' }
    ? O extends { default: string }
      ? { readonly type: 'string'; readonly default: string }
      : O extends { multiple: true }
        ? { readonly type: 'string'; readonly multiple: true }
        : { readonly type: 'string' }
    : { readonly type: 'boolean'; readonly default: boolean; readonly short?: string }
}

/** The options of `table` as `parseArgs` takes them. */
export function parseOptionsOf<const T extends readonly OptionRow[]>(table: T): ParseOptions<T[number]> {
  const entries = table.map((option: OptionRow) => [
    option.name,
    {
      type: option.type,
      ...(option.short !== undefined && { short: option.short }),
      ...(option.multiple && { multiple: true }),
      ...(option.type === 'boolean'
        ? { default: false }
        : option.default !== undefined && { default: option.default }),
    },
  ])
  return Object.fromEntries(entries) as ParseOptions<T[number]>
}

/** The options of `dsh-acp` as `parseArgs` takes them. */
export function parseOptions(): ParseOptions<Row> {
  return parseOptionsOf(CLI_OPTIONS)
}

/**
 * The command line read against the table: the options' values, the positionals and the tokens
 * (which options were given). Throws a TypeError for an unknown option or a missing value.
 */
export function readArgv(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, options: parseOptions(), tokens: true })
}

/** The smallest value `--name` accepts. */
export function minimumOf(name: IntegerOptionName): number {
  const option: CliOption | undefined = CLI_OPTIONS.find((o) => o.name === name)
  if (option?.minimum === undefined) throw new Error(`--${name} is not an integer option`)
  return option.minimum
}

/**
 * An integer option of at least its table minimum, or undefined when it was not given. Throws a
 * TypeError naming the minimum.
 */
export function integerOption(
  values: { readonly [N in IntegerOptionName]?: string },
  name: IntegerOptionName,
) {
  const raw = values[name]
  if (raw === undefined) return undefined
  const value = Number(raw)
  const min = minimumOf(name)
  if (!Number.isSafeInteger(value) || value < min)
    throw new TypeError(`--${name} must be an integer of at least ${min}`)
  return value
}

/** How the usage text and `x-cli` write the option: `--store DIR`, `--memory`. */
export function optionForm(option: OptionRow): string {
  return option.value === undefined ? `--${option.name}` : `--${option.name} ${option.value}`
}

const USAGE_HEAD = `Usage: dsh-acp [serve] [options]      serve ACP on stdin/stdout (what an editor starts)
       dsh-acp sessions [options]     print the stored sessions as a lineage tree
       dsh-acp config [options]       print the effective configuration and where each value
                                      came from (keys masked)
       dsh-acp setup [setup options]  choose a model provider, store its key, write the
                                      configuration file (setup --help)
       dsh-acp trust [list | add PATH | decline PATH | remove PATH]
                                      list or edit which folders' project configuration
                                      is used (workspace trust; trust --help)
       dsh-acp store copy FROM TO     copy every session between a JSONL directory and a
                                      PostgreSQL database, either way (store --help)
       dsh-acp store gc STORE         remove the checkpoint blobs no session names
       dsh-acp record --out FILE [--] AGENT_COMMAND [ARGS...]
                                      run an agent, recording its traffic (record --help)
       dsh-acp replay FILE [options] [--] AGENT_COMMAND [ARGS...]
                                      replay a transcript against an agent (replay --help)

Options:
`
/** Where an option's description starts; a longer form puts it on the next line. */
const HELP_COLUMN = 23

/** The usage text's lines for `table`: each listed option's forms, then its description. */
export function optionLines(table: readonly OptionRow[]): string {
  const lines: string[] = []
  for (const option of table) {
    const form = `  ${option.short === undefined ? '' : `-${option.short}, `}${optionForm(option)}`
    if (option.help.length === 0) continue
    if (option.section !== undefined) lines.push('', option.section)
    const [first = '', ...rest] = option.help
    if (form.length < HELP_COLUMN - 1) lines.push(form.padEnd(HELP_COLUMN) + first)
    else lines.push(form, ' '.repeat(HELP_COLUMN) + first)
    for (const line of rest) lines.push(' '.repeat(HELP_COLUMN) + line)
  }
  return `${lines.join('\n')}\n`
}

/** The `--help` text: the commands, then every option with its description. */
export function usageText(): string {
  return `${USAGE_HEAD}${optionLines(CLI_OPTIONS)}`
}
