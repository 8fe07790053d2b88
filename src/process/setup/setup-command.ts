import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { modelNameList } from '../../agent/providers/index.js'
import { CONFIG_FILE_SCHEMA_ID, PROVIDER_ID_PATTERN } from '../config/file-schema.js'
import type { ModelEntry, ProviderEntry, UserConfigFile } from '../config/file-types.js'
import { credentialsFile, userConfigFile } from '../config/paths.js'
import { describeProblem } from '../config/problems.js'
import { storeKey } from '../config/providers/credentials.js'
import { readConfigFile } from '../config/read-file.js'
import { checkConnection, listModels } from './check-connection.js'
import { PROVIDER_PRESETS, type ProviderPreset, presetById } from './presets.js'
import { Prompter, SetupCancelled } from './prompter.js'
import { SETUP_PARSE_OPTIONS, SETUP_USAGE } from './setup-options.js'

interface SetupChoice {
  readonly id: string
  readonly title?: string
  readonly baseUrl: string
  readonly models: readonly ModelEntry[]
  /** The key to store, when one was entered. */
  readonly key?: string
  readonly keyEnv?: string
  readonly keyRequired: boolean
}

export interface SetupIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly env: NodeJS.ProcessEnv
}

/** `dsh-acp setup [ARGS]`: the exit code (0 written, 1 failed, 2 bad arguments, 130 cancelled). */
export async function runSetupCommand(
  args: readonly string[],
  io: SetupIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  let values: ReturnType<typeof parseSetupArgs>
  try {
    values = parseSetupArgs(args)
  } catch (error) {
    io.stderr.write(`dsh-acp setup: ${(error as Error).message}\n\n${SETUP_USAGE}`)
    return 2
  }
  if (values.help) {
    io.stdout.write(SETUP_USAGE)
    return 0
  }
  let prompter: Prompter | undefined
  const say = (text: string) => io.stdout.write(`${text}\n`)
  try {
    const file = userConfigFile(io.env)
    const existing = await readConfigFile(file, 'user')
    if (existing.state === 'invalid') {
      io.stderr.write(
        `dsh-acp setup: ${file} is not a valid configuration, so it is left as it is:\n${existing.problems.map((p) => `  ${describeProblem(p)}\n`).join('')}Fix it or move it away, then run dsh-acp setup again.\n`,
      )
      return 1
    }
    const current = existing.state === 'valid' ? existing.value : {}
    let choice: SetupChoice
    if (values.provider !== undefined) {
      choice = await fromFlags(values, io)
    } else if (io.stdin.isTTY === true || values.interactive) {
      prompter = new Prompter(io.stdin, io.stdout)
      choice = await interactively(prompter, io.env)
    } else {
      io.stderr.write('dsh-acp setup: stdin is not a terminal: give --provider (see --help)\n')
      return 2
    }
    const model = choice.models[0] as ModelEntry
    const key = choice.key ?? (choice.keyEnv === undefined ? undefined : io.env[choice.keyEnv])
    if (!values['no-check']) {
      say(`Checking ${choice.baseUrl} with one small request to ${model.name}...`)
      const result = await checkConnection(choice.baseUrl, model.name, key || undefined)
      if (result.ok) say('The server answered.')
      else {
        say(`The check failed: ${result.reason}`)
        if (!prompter || !(await prompter.confirm('Save the configuration anyway?', false))) {
          io.stderr.write(
            'dsh-acp setup: nothing was written (run with --no-check to save without checking)\n',
          )
          return 1
        }
      }
    }
    writeConfig(file, withProvider(current, choice))
    say(`Wrote ${file}: the default model is ${choice.id}/${model.name}.`)
    if (choice.key !== undefined) {
      const credentials = credentialsFile(io.env)
      storeKey(credentials, choice.id, choice.key)
      say(`Stored the key in ${credentials} (mode 0600).`)
    }
    say('Restart the agent in your editor to use it; dsh-acp config shows the whole configuration.')
    return 0
  } catch (error) {
    if (error instanceof SetupCancelled) {
      io.stderr.write(`\ndsh-acp setup: ${error.message}; nothing was written\n`)
      return 130
    }
    io.stderr.write(`dsh-acp setup: ${(error as Error).message}\n`)
    // A TypeError is what the flags lack (fromFlags): a usage error.
    return error instanceof TypeError ? 2 : 1
  } finally {
    prompter?.close()
  }
}

function parseSetupArgs(args: readonly string[]) {
  const { values } = parseArgs({
    args: [...args],
    options: SETUP_PARSE_OPTIONS,
  })
  const keyWays = [values['key-stdin'], values['key-env'] !== undefined, values['no-key']].filter(Boolean)
  if (keyWays.length > 1) throw new TypeError('--key-stdin, --key-env and --no-key exclude each other')
  if (values['key-env'] !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(values['key-env']))
    throw new TypeError('--key-env must name an environment variable')
  if (values.provider !== undefined && !new RegExp(PROVIDER_ID_PATTERN).test(values.provider))
    throw new TypeError('--provider must be lowercase letters, digits, ".", "_" or "-"')
  return values
}

async function fromFlags(values: ReturnType<typeof parseSetupArgs>, io: SetupIo): Promise<SetupChoice> {
  const id = values.provider as string
  const preset = presetById(id)
  const baseUrl = values['base-url'] ?? preset?.baseUrl ?? ''
  if (!/^https?:\/\//.test(baseUrl))
    throw new TypeError(`--provider ${id} needs --base-url URL (http or https)`)
  const names = modelNameList(values.models)
  const models = names.length > 0 ? names.map((name) => presetModel(preset, name)) : (preset?.models ?? [])
  if (models.length === 0) throw new TypeError(`--provider ${id} needs --models NAME[,NAME...]`)
  const keyRequired = values['no-key'] ? false : (preset?.keyRequired ?? true)
  let key: string | undefined
  if (values['key-stdin']) {
    key = (await readAll(io.stdin)).trim()
    if (key === '') throw new TypeError('--key-stdin: stdin held no key')
  } else if (keyRequired && values['key-env'] === undefined) {
    throw new TypeError(
      `--provider ${id} needs a key: --key-stdin, --key-env NAME, or --no-key if the server needs none`,
    )
  }
  return {
    id,
    ...(preset && preset.id !== 'custom' && { title: preset.title }),
    baseUrl,
    models,
    ...(key !== undefined && { key }),
    ...(values['key-env'] !== undefined && { keyEnv: values['key-env'] }),
    keyRequired: key !== undefined || values['key-env'] !== undefined ? true : keyRequired,
  }
}

async function interactively(prompter: Prompter, env: NodeJS.ProcessEnv): Promise<SetupChoice> {
  prompter.say('dsh-acp setup: which model server should dsh-acp use?')
  const preset = PROVIDER_PRESETS[
    await prompter.choose(
      'Provider',
      PROVIDER_PRESETS.map((p) => ({ id: p.id, title: `${p.title}${p.baseUrl ? ` (${p.baseUrl})` : ''}` })),
    )
  ] as ProviderPreset
  let id = preset.id
  let baseUrl = preset.baseUrl
  let keyRequired = preset.keyRequired
  if (preset.id === 'custom') {
    id = await askMatching(
      prompter,
      'A short id for it (lowercase)',
      'custom',
      new RegExp(PROVIDER_ID_PATTERN),
    )
    baseUrl = await askMatching(prompter, 'Its API root (e.g. https://example.com/v1)', '', /^https?:\/\/.+/)
    keyRequired = await prompter.confirm('Does it need an API key?', true)
  } else if (!preset.keyRequired) {
    baseUrl = await askMatching(prompter, 'Its API root', baseUrl, /^https?:\/\/.+/)
  }
  let key: string | undefined
  let keyEnv: string | undefined
  const inEnv = preset.keyEnv !== undefined && env[preset.keyEnv] ? preset.keyEnv : undefined
  if (inEnv && (await prompter.confirm(`Use the key in $${inEnv} (read each time, not stored)?`, true))) {
    keyEnv = inEnv
  } else if (keyRequired || (await prompter.confirm('Does the server want a key anyway?', false))) {
    if (preset.keyHint) prompter.say(`Keys are made at ${preset.keyHint}`)
    for (;;) {
      key = await prompter.askHidden('API key')
      if (key !== '') break
      prompter.say('The key is empty; paste it, or press Ctrl-C to stop.')
    }
    keyRequired = true
  }
  const listed = await listModels(baseUrl, key ?? (keyEnv && env[keyEnv]) ?? undefined)
  const suggested = preset.models.map((m) => m.name)
  const offer = listed ?? suggested
  if (offer.length > 0) {
    prompter.say(
      `${listed ? 'The server lists' : 'Known models'}: ${offer.slice(0, 30).join(', ')}${offer.length > 30 ? ', ...' : ''}`,
    )
  }
  let names: string[] = []
  while (names.length === 0) {
    names = modelNameList(
      await prompter.ask(
        'Models to offer, comma-separated (the first is the default)',
        suggested.join(',') || offer[0] || '',
      ),
    )
  }
  return {
    id,
    ...(preset.id !== 'custom' && { title: preset.title }),
    baseUrl,
    models: names.map((name) => presetModel(preset, name)),
    ...(key !== undefined && { key }),
    ...(keyEnv !== undefined && { keyEnv }),
    keyRequired,
  }
}

async function askMatching(
  prompter: Prompter,
  question: string,
  fallback: string,
  pattern: RegExp,
): Promise<string> {
  for (;;) {
    const answer = await prompter.ask(question, fallback)
    if (pattern.test(answer)) return answer
    prompter.say(`That does not look right (expected ${pattern.source}).`)
  }
}

function presetModel(preset: ProviderPreset | undefined, name: string): ModelEntry {
  return preset?.models.find((m) => m.name === name) ?? { name }
}

/** `current` with the chosen provider (replacing one of the same id) and its first model the default. */
function withProvider(current: UserConfigFile, choice: SetupChoice): UserConfigFile & { $schema: string } {
  const provider: ProviderEntry = {
    ...(choice.title !== undefined && { title: choice.title }),
    baseUrl: choice.baseUrl,
    ...(choice.keyEnv !== undefined && { apiKeyEnv: choice.keyEnv }),
    ...(!choice.keyRequired && { keyRequired: false }),
    models: [...choice.models],
  }
  return {
    $schema: CONFIG_FILE_SCHEMA_ID,
    ...current,
    providers: { ...current.providers, [choice.id]: provider },
    defaultModel: `${choice.id}/${(choice.models[0] as ModelEntry).name}`,
  }
}

/** Written whole to a temporary file beside it, then renamed over it. */
function writeConfig(file: string, config: UserConfigFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temp = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o644 })
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  stream.setEncoding('utf8')
  for await (const chunk of stream) text += chunk
  return text
}
