import { type Placeholder, parsePlaceholder } from './compare/placeholders.js'
import type { AgentCommand } from './record.js'

export const RECORD_USAGE = `Usage: dsh-acp record --out FILE [--] AGENT_COMMAND [ARGS...]

Starts AGENT_COMMAND and sits between it and the editor that started dsh-acp record, copying
stdin and stdout unchanged while appending every message, with its direction and time offset,
to FILE (one JSON entry per line; see schemas/transcript.schema.json). Exits with the agent's
status; SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGUSR2 are passed on to it.

Options:
  --out FILE   the transcript to append to (created if missing)
  -h, --help   this text
`

export const REPLAY_USAGE = `Usage: dsh-acp replay FILE [options] [--] AGENT_COMMAND [ARGS...]

Plays the client side of the transcript FILE against AGENT_COMMAND and compares what the agent
says with what FILE holds, after normalization. Exit status: 0 equal, 1 differences, 2 usage or
start errors.

Options:
  --rules FILE       more normalization rules (JSON; repeatable; see docs/record-and-replay.md)
  --set NAME=VALUE   put VALUE where the transcript says <NAME> in what is sent to the agent,
                     and compare VALUE as <NAME> (repeatable; e.g. --set work=$PWD)
  --loose-order      notifications of different sessions may interleave differently
  --validate         check every agent message against the official ACP schema
  --json             write the report as JSON to stdout
  --update           rewrite the agent's side of FILE from this run
  --timeout MS       how long to wait for each expected message (default 10000)
  -h, --help         this text
`

export interface RecordCommandLine {
  readonly command: 'record'
  readonly out: string
  readonly agent: AgentCommand
}

export interface ReplayCommandLine {
  readonly command: 'replay'
  readonly file: string
  readonly agent: AgentCommand
  readonly rules: readonly string[]
  readonly placeholders: readonly Placeholder[]
  readonly looseOrder: boolean
  readonly validate: boolean
  readonly json: boolean
  readonly update: boolean
  readonly timeoutMs: number
}

export type ToolCommandLine =
  | RecordCommandLine
  | ReplayCommandLine
  | { readonly command: 'help'; readonly usage: string }

/** Bad command-line input, with a message for the user. */
export class UsageError extends Error {
  override name = 'UsageError'
}

const DEFAULT_TIMEOUT_MS = 10_000

/**
 * Parses `record ...` or `replay ...` (the subcommand included). Options come before the agent
 * command; the first word that is not an option (or everything after `--`) is the agent command,
 * so the agent's own options are never read as ours.
 */
export function parseToolCommandLine(argv: readonly string[]): ToolCommandLine {
  const [command, ...rest] = argv
  if (command !== 'record' && command !== 'replay')
    throw new UsageError(`unknown command ${JSON.stringify(command)}`)
  const usage = command === 'record' ? RECORD_USAGE : REPLAY_USAGE
  const values = new Map<string, string[]>()
  const flags = new Set<string>()
  const positionals: string[] = []
  const withValue = command === 'record' ? ['--out'] : ['--rules', '--set', '--timeout']
  const booleans = command === 'record' ? [] : ['--loose-order', '--validate', '--json', '--update']
  let index = 0
  while (index < rest.length) {
    const word = rest[index] as string
    if (word === '--') {
      index++
      break
    }
    if (word === '-h' || word === '--help') return { command: 'help', usage }
    if (!word.startsWith('-') || word === '-') {
      if (command === 'replay' && positionals.length === 0) {
        positionals.push(word)
        index++
        continue
      }
      break
    }
    const [name, inline] = word.includes('=')
      ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
      : [word, undefined]
    if (withValue.includes(name)) {
      const value = inline ?? rest[index + 1]
      if (value === undefined) throw new UsageError(`${name} needs a value`)
      values.set(name, [...(values.get(name) ?? []), value])
      index += inline === undefined ? 2 : 1
    } else if (booleans.includes(name) && inline === undefined) {
      flags.add(name)
      index++
    } else throw new UsageError(`unknown option ${word}`)
  }
  if (command === 'replay' && positionals.length === 0) {
    const file = rest[index]
    if (file === undefined) throw new UsageError('the transcript FILE is missing')
    positionals.push(file)
    index++
  }
  const [agentCommand, ...agentArgs] = rest.slice(index)
  if (agentCommand === undefined || agentCommand === '') throw new UsageError('the AGENT_COMMAND is missing')
  const agent = { command: agentCommand, args: agentArgs }
  const single = (name: string): string | undefined => {
    const given = values.get(name) ?? []
    if (given.length > 1) throw new UsageError(`${name} given more than once`)
    return given[0]
  }
  if (command === 'record') {
    const out = single('--out')
    if (out === undefined || out === '') throw new UsageError('--out FILE is required')
    return { command, out, agent }
  }
  const timeout = single('--timeout')
  const timeoutMs = timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(timeout)
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)
    throw new UsageError('--timeout must be a whole number of milliseconds, at least 1')
  const placeholders: Placeholder[] = []
  for (const text of values.get('--set') ?? []) {
    const parsed = parsePlaceholder(text)
    if ('problem' in parsed) throw new UsageError(`--set: ${parsed.problem}`)
    if (placeholders.some((p) => p.name === parsed.name))
      throw new UsageError(`--set: ${parsed.name} given more than once`)
    placeholders.push(parsed)
  }
  return {
    command,
    file: positionals[0] as string,
    placeholders,
    agent,
    rules: values.get('--rules') ?? [],
    looseOrder: flags.has('--loose-order'),
    validate: flags.has('--validate'),
    json: flags.has('--json'),
    update: flags.has('--update'),
    timeoutMs,
  }
}
