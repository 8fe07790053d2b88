import { parseArgs } from 'node:util'
import type { ModelPricing } from '../agent/index.js'
import { isCurrency } from '../agent/providers/model-terms.js'
import { SANDBOX_MODES, type SandboxMode } from '../agent/tools/command/sandbox-mode.js'
import { integerOption, parseOptions, readArgv } from './cli/parse-options.js'
import { usageText } from './cli/usage-text.js'
import { COMMANDS } from './cli-options.js'
import type { CliOptions } from './config-schema.js'
import { LOG_LEVELS, type LogLevelName } from './log-levels.js'
import { remoteOptions } from './remote/remote-options.js'

export type { CliOptions }

/** The `--help` text (generated from the options table, cli-options.ts), built when shown: a server's start never pays for its option table's lines. */
export function usage(): string {
  return usageText()
}

/** Parses the command line; throws a TypeError with a message for the user on bad input. */
export function parseCli(argv: readonly string[]): CliOptions {
  const { values, positionals } = readArgv(argv)
  const [first, ...rest] = positionals
  if (rest.length > 0) throw new TypeError(`unexpected argument ${JSON.stringify(rest[0])}`)
  if (first !== undefined && !isCommand(first))
    throw new TypeError(`unknown command ${JSON.stringify(first)}`)
  const logLevel = values['log-level']
  if (!isLogLevel(logLevel))
    throw new TypeError(`--log-level must be one of ${Object.keys(LOG_LEVELS).join(', ')}`)
  if (values.memory && values.store !== undefined)
    throw new TypeError('--memory and --store exclude each other')
  const sandbox = values.sandbox
  if (!isSandboxMode(sandbox)) throw new TypeError(`--sandbox must be one of ${SANDBOX_MODES.join(', ')}`)
  const sandboxNetwork = values['sandbox-network']
  if (sandboxNetwork !== 'on' && sandboxNetwork !== 'off')
    throw new TypeError('--sandbox-network must be on or off')
  const protocol = values.protocol
  if (protocol !== 'auto' && protocol !== 'v1' && protocol !== 'v2')
    throw new TypeError('--protocol must be auto, v1 or v2')
  const maxLineBytes = integerOption(values, 'max-line-bytes')
  const maxSteps = integerOption(values, 'max-steps')
  const maxSubagents = integerOption(values, 'max-subagents')
  const subagentMaxSteps = integerOption(values, 'subagent-max-steps')
  if (values['no-subagents'] && (maxSubagents !== undefined || subagentMaxSteps !== undefined)) {
    throw new TypeError('--no-subagents excludes --max-subagents and --subagent-max-steps')
  }
  const contextWindow = integerOption(values, 'context-window')
  const prices = priceOptions(values)
  const compactAt = compactAtOption(values['compact-at'])
  const maxRetries = integerOption(values, 'max-retries')
  const requestTimeout = integerOption(values, 'request-timeout')
  const mcpTimeoutMs = integerOption(values, 'mcp-timeout-ms')
  let fakeClock: number | undefined
  if (values['fake-clock'] !== undefined) {
    fakeClock = Date.parse(values['fake-clock'])
    if (Number.isNaN(fakeClock)) throw new TypeError('--fake-clock must be an ISO-8601 time')
  }
  const idPrefix = values['id-prefix']
  if (idPrefix !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(idPrefix)) {
    throw new TypeError('--id-prefix must be 1-100 characters of A-Z a-z 0-9 _ -')
  }
  const command = values.help ? 'help' : values.version ? 'version' : (first ?? 'serve')
  const remote = remoteOptions(values)
  return {
    command,
    ...(values.memory ? { storeDir: null } : values.store !== undefined && { storeDir: values.store }),
    model: values.model,
    ...(values['base-url'] !== undefined && { baseUrl: values['base-url'] }),
    ...(values['model-name'] !== undefined && { modelName: values['model-name'] }),
    ...(values['image-input'] === true && { imageInput: true as const }),
    fork: !values['no-fork'],
    sandbox,
    sandboxNetwork: sandboxNetwork === 'on',
    protocol,
    subagents: values['no-subagents']
      ? false
      : {
          ...(maxSubagents !== undefined && { maxConcurrent: maxSubagents }),
          ...(subagentMaxSteps !== undefined && { maxSteps: subagentMaxSteps }),
        },
    ...(values.transcript !== undefined && { transcript: values.transcript }),
    logLevel,
    ...(maxLineBytes !== undefined && { maxLineBytes }),
    ...(maxSteps !== undefined && { maxSteps }),
    ...(contextWindow !== undefined && { contextWindow }),
    ...(prices !== undefined && { prices }),
    ...(compactAt !== undefined && { compactAt }),
    ...(maxRetries !== undefined && { maxRetries }),
    ...(requestTimeout !== undefined && { requestTimeout }),
    ...(mcpTimeoutMs !== undefined && { mcpTimeoutMs }),
    ...(fakeClock !== undefined && { fakeClock }),
    ...(idPrefix !== undefined && { idPrefix }),
    ...(remote !== undefined && { remote }),
  }
}

/** `--price-*` as one price, or undefined when none was given; both input and output are required. */
function priceOptions(values: {
  readonly 'price-input'?: string
  readonly 'price-cached-input'?: string
  readonly 'price-output'?: string
  readonly 'price-currency'?: string
}): ModelPricing | undefined {
  const price = (name: 'price-input' | 'price-cached-input' | 'price-output') => {
    const raw = values[name]
    if (raw === undefined) return undefined
    const value = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(value) || value < 0)
      throw new TypeError(`--${name} must be a price per million tokens (a number >= 0)`)
    return value
  }
  const input = price('price-input')
  const cachedInput = price('price-cached-input')
  const output = price('price-output')
  const currency = values['price-currency']
  if (input === undefined && output === undefined && cachedInput === undefined && currency === undefined)
    return undefined
  if (input === undefined || output === undefined)
    throw new TypeError(
      '--price-input and --price-output go together (and --price-cached-input, --price-currency with them)',
    )
  if (currency !== undefined && !isCurrency(currency))
    throw new TypeError(
      '--price-currency must be a currency code such as USD or EUR (1-16 letters, digits, _ or -)',
    )
  return {
    input,
    output,
    ...(cachedInput !== undefined && { cachedInput }),
    ...(currency !== undefined && { currency }),
  }
}

/** `--compact-at F`: a fraction in (0, 1], or `off`. */
function compactAtOption(raw: string | undefined): number | false | undefined {
  if (raw === undefined) return undefined
  if (raw === 'off') return false
  const value = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > 1)
    throw new TypeError(
      '--compact-at must be a fraction of the context window above 0 and at most 1 (e.g. 0.8), or off',
    )
  return value
}

function isCommand(word: string): word is (typeof COMMANDS)[number] {
  return (COMMANDS as readonly string[]).includes(word)
}

function isSandboxMode(name: string): name is SandboxMode {
  return (SANDBOX_MODES as readonly string[]).includes(name)
}

function isLogLevel(name: string): name is LogLevelName {
  return name in LOG_LEVELS
}

/**
 * The arguments of `dsh-acp ... setup [ARGS]` (what follows the word `setup` given as a command),
 * else undefined. Options before it are ignored: an editor runs terminal auth as its usual agent
 * command with `setup` appended.
 */
export function setupArguments(argv: readonly string[]): string[] | undefined {
  const { tokens } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    options: parseOptions(),
    tokens: true,
  })
  const first = tokens.find((token) => token.kind === 'positional')
  if (first?.kind !== 'positional' || first.value !== 'setup') return undefined
  return argv.slice(first.index + 1)
}
