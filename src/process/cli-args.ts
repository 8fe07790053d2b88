import { parseArgs } from 'node:util'
import type { SubagentConfig } from '../agent/index.js'
import { LOG_LEVELS, type LogLevelName } from './log-levels.js'

export interface CliOptions {
  readonly command: 'serve' | 'sessions' | 'help' | 'version'
  readonly storeDir: string | null | undefined
  readonly model: string
  readonly baseUrl?: string
  readonly modelName?: string
  /** openai: the model accepts image prompts. */
  readonly imageInput?: true
  readonly fork: boolean
  readonly transcript?: string
  readonly logLevel: LogLevelName
  readonly maxLineBytes?: number
  /** Model requests per turn before it ends with max_turn_requests. */
  readonly maxSteps?: number
  /** The delegate tool: `false` (--no-subagents), else its bounds. */
  readonly subagents: false | SubagentConfig
  /** openai: the model's context window in tokens (enables usage_update). */
  readonly contextWindow?: number
  /** openai: retries of 429/5xx/connection failures before the turn fails. */
  readonly maxRetries?: number
  /** openai: the longest silence from the server, in seconds, before the request fails. */
  readonly requestTimeout?: number
  /** MCP servers: milliseconds allowed for connecting, listing tools and each tool call. */
  readonly mcpTimeoutMs?: number
  /** Reproducible runs: every time stamp is this instant (ms since the epoch). */
  readonly fakeClock?: number
  /** Reproducible runs: session ids are this prefix + 1, 2, 3, ... */
  readonly idPrefix?: string
}

export const USAGE = `Usage: dsh-acp [serve] [options]      serve ACP on stdin/stdout (what an editor starts)
       dsh-acp sessions [options]     print the stored sessions as a lineage tree
       dsh-acp record --out FILE [--] AGENT_COMMAND [ARGS...]
                                      run an agent, recording its traffic (record --help)
       dsh-acp replay FILE [options] [--] AGENT_COMMAND [ARGS...]
                                      replay a transcript against an agent (replay --help)

Options:
  --store DIR          session store directory (default: $DSH_HOME/sessions,
                       DSH_HOME defaulting to $XDG_DATA_HOME/dsh-acp)
  --memory             keep sessions in memory only (nothing is written)
  --model NAME         echo (default, offline), script:FILE, or openai
  --base-url URL       openai: the chat completions server (e.g. https://api.deepseek.com/v1)
  --model-name NAMES   the models a session may choose, comma-separated, the first
                       the default (openai: required; the key comes from DSH_API_KEY)
  --image-input        openai: the models accept images (advertises image prompts)
  --context-window N   openai: the model's context window in tokens (reports usage)
  --max-retries N      openai: retries of 429, 5xx and lost connections (default 3)
  --request-timeout S  openai: seconds of silence from the server before failing (300)
  --max-steps N        model requests per turn before it stops (default 32)
  --mcp-timeout-ms N   MCP servers: time allowed to start, list tools and answer
                       each call (default 60000)
  --max-subagents N    delegations of one step that run at once (default 4)
  --subagent-max-steps N
                       model requests per subagent turn (default: --max-steps)
  --no-subagents       do not offer the model the delegate tool
  --no-fork            do not serve or advertise session/fork
  --transcript FILE    record every wire message, both directions, one per line
  --max-line-bytes N   largest accepted message line (default 32 MiB)
  --log-level LEVEL    silent, error, info (default) or debug; logs go to stderr
  --fake-clock ISO     reproducible transcripts: stamp every event with this time
  --id-prefix PREFIX   reproducible transcripts: mint ids PREFIX1, PREFIX2, ...
  -h, --help           this text
  -v, --version        the version
`

/** Parses the command line; throws a TypeError with a message for the user on bad input. */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      store: { type: 'string' },
      memory: { type: 'boolean', default: false },
      model: { type: 'string', default: 'echo' },
      'base-url': { type: 'string' },
      'model-name': { type: 'string' },
      'image-input': { type: 'boolean', default: false },
      'no-fork': { type: 'boolean', default: false },
      'no-subagents': { type: 'boolean', default: false },
      'max-subagents': { type: 'string' },
      'subagent-max-steps': { type: 'string' },
      transcript: { type: 'string' },
      'max-line-bytes': { type: 'string' },
      'max-steps': { type: 'string' },
      'mcp-timeout-ms': { type: 'string' },
      'context-window': { type: 'string' },
      'max-retries': { type: 'string' },
      'request-timeout': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'fake-clock': { type: 'string' },
      'id-prefix': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  })
  const [first, ...rest] = positionals
  if (rest.length > 0) throw new TypeError(`unexpected argument ${JSON.stringify(rest[0])}`)
  if (first !== undefined && first !== 'serve' && first !== 'sessions') {
    throw new TypeError(`unknown command ${JSON.stringify(first)}`)
  }
  const logLevel = values['log-level'] as string
  if (!(logLevel in LOG_LEVELS))
    throw new TypeError(`--log-level must be one of ${Object.keys(LOG_LEVELS).join(', ')}`)
  if (values.memory && values.store !== undefined)
    throw new TypeError('--memory and --store exclude each other')
  const maxLineBytes = integerOption(values, 'max-line-bytes', 1024)
  const maxSteps = integerOption(values, 'max-steps', 1)
  const maxSubagents = integerOption(values, 'max-subagents', 1)
  const subagentMaxSteps = integerOption(values, 'subagent-max-steps', 1)
  if (values['no-subagents'] && (maxSubagents !== undefined || subagentMaxSteps !== undefined)) {
    throw new TypeError('--no-subagents excludes --max-subagents and --subagent-max-steps')
  }
  const contextWindow = integerOption(values, 'context-window', 1)
  const maxRetries = integerOption(values, 'max-retries', 0)
  const requestTimeout = integerOption(values, 'request-timeout', 1)
  const mcpTimeoutMs = integerOption(values, 'mcp-timeout-ms', 1)
  let fakeClock: number | undefined
  if (values['fake-clock'] !== undefined) {
    fakeClock = Date.parse(values['fake-clock'])
    if (Number.isNaN(fakeClock)) throw new TypeError('--fake-clock must be an ISO-8601 time')
  }
  const idPrefix = values['id-prefix']
  if (idPrefix !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(idPrefix)) {
    throw new TypeError('--id-prefix must be 1-100 characters of A-Z a-z 0-9 _ -')
  }
  const command = values.help
    ? 'help'
    : values.version
      ? 'version'
      : ((first ?? 'serve') as 'serve' | 'sessions')
  return {
    command,
    storeDir: values.memory ? null : values.store,
    model: values.model as string,
    ...(values['base-url'] !== undefined && { baseUrl: values['base-url'] }),
    ...(values['model-name'] !== undefined && { modelName: values['model-name'] }),
    ...(values['image-input'] === true && { imageInput: true as const }),
    fork: !values['no-fork'],
    subagents: values['no-subagents']
      ? false
      : {
          ...(maxSubagents !== undefined && { maxConcurrent: maxSubagents }),
          ...(subagentMaxSteps !== undefined && { maxSteps: subagentMaxSteps }),
        },
    ...(values.transcript !== undefined && { transcript: values.transcript }),
    logLevel: logLevel as LogLevelName,
    ...(maxLineBytes !== undefined && { maxLineBytes }),
    ...(maxSteps !== undefined && { maxSteps }),
    ...(contextWindow !== undefined && { contextWindow }),
    ...(maxRetries !== undefined && { maxRetries }),
    ...(requestTimeout !== undefined && { requestTimeout }),
    ...(mcpTimeoutMs !== undefined && { mcpTimeoutMs }),
    ...(fakeClock !== undefined && { fakeClock }),
    ...(idPrefix !== undefined && { idPrefix }),
  }
}

/** An integer option of at least `min`, or undefined when it was not given. */
function integerOption(values: Record<string, unknown>, name: string, min: number): number | undefined {
  const raw = values[name]
  if (raw === undefined) return undefined
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min)
    throw new TypeError(`--${name} must be an integer of at least ${min}`)
  return value
}
