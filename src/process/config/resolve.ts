import type { CliOptions } from '../cli-args.js'
import { readCredentials } from './credentials.js'
import type {
  LimitsEntry,
  McpServerEntry,
  ModelEntry,
  ModeName,
  ProjectConfigFile,
  ProviderEntry,
  UserConfigFile,
} from './file-types.js'
import { givenProperties } from './given-flags.js'
import { credentialsFile, findProjectConfig, userConfigFile } from './paths.js'
import type { ConfigProblem } from './problems.js'
import { readConfigFile } from './read-file.js'

/** Where one value of the effective configuration came from. */
export type ValueSource =
  | { readonly kind: 'flag'; readonly flag: string }
  | { readonly kind: 'user-file'; readonly file: string }
  | { readonly kind: 'project-file'; readonly file: string }
  | { readonly kind: 'default' }

/** One model a session may choose, from the configuration files. */
export interface ConfiguredModel {
  /** `provider/name`: the session's `model` option value. */
  readonly id: string
  readonly providerId: string
  readonly provider: ProviderEntry
  readonly model: ModelEntry
}

/** The models of the configuration files, the default one first. */
export interface FileModels {
  readonly models: readonly ConfiguredModel[]
  /** Where the default (the first) was chosen. */
  readonly defaultSource: ValueSource
}

/** The configuration a run uses: flags over the project file over the user's file over defaults. */
export interface ResolvedConfig {
  /** The options to run with (flags, with the files' values where no flag was given). */
  readonly options: CliOptions
  /** Where each value came from, by its name in `dsh-acp config` (e.g. `limits.maxSteps`). */
  readonly sources: ReadonlyMap<string, ValueSource>
  /** The models from the files; undefined when the command line chose the model, or no file has providers. */
  readonly fileModels: FileModels | undefined
  /** The mode new sessions start in, when a file says. */
  readonly defaultMode: ModeName | undefined
  /** MCP servers of the user's file (a project's are added per session cwd, see `projectServers`). */
  readonly mcpServers: readonly McpServerEntry[]
  /**
   * Which variables of the agent's environment commands see: the user file's `sandbox.passEnv`,
   * never the names the files give to secrets (providers' `apiKeyEnv`, MCP servers' variables).
   */
  readonly commandEnv: { readonly pass: readonly string[]; readonly deny: readonly string[] }
  /** `limits.mcpSamplingPerTurn` (the project's over the user's); absent: the default. */
  readonly mcpSamplingPerTurn?: number
  /** Every problem found: the files they concern were ignored (or the part named). */
  readonly problems: readonly ConfigProblem[]
  readonly files: {
    readonly user: string
    readonly credentials: string
    readonly project: string | undefined
  }
}

export interface ResolveInput {
  readonly argv: readonly string[]
  readonly parsed: CliOptions
  readonly env?: NodeJS.ProcessEnv
  /** Where the project file is looked for (the process's cwd). */
  readonly cwd?: string
  readonly home?: string
}

const LIMIT_OPTIONS = ['maxSteps', 'mcpTimeoutMs', 'maxRetries', 'requestTimeout', 'maxLineBytes'] as const
/** The options that choose the model: any of them given means the command line chose it. */
const MODEL_OPTIONS = ['model', 'baseUrl', 'modelName', 'imageInput', 'contextWindow'] as const

/** Reads the files and merges them under the flags (see {@link ResolvedConfig}). */
export async function resolveConfig(input: ResolveInput): Promise<ResolvedConfig> {
  const env = input.env ?? process.env
  const files = {
    user: userConfigFile(env, input.home),
    credentials: credentialsFile(env, input.home),
    project: findProjectConfig(input.cwd ?? process.cwd(), input.home),
  }
  const problems: ConfigProblem[] = []
  const userRead = await readConfigFile(files.user, 'user')
  const user: UserConfigFile = userRead.state === 'valid' ? userRead.value : {}
  if (userRead.state === 'invalid') problems.push(...userRead.problems)
  let project: ProjectConfigFile = {}
  if (files.project !== undefined) {
    const read = await readConfigFile(files.project, 'project')
    if (read.state === 'valid') project = read.value
    else if (read.state === 'invalid') problems.push(...read.problems)
  }
  problems.push(...readCredentials(files.credentials).problems)

  const given = givenProperties(input.argv)
  const sources = new Map<string, ValueSource>()
  const fromUser: ValueSource = { kind: 'user-file', file: files.user }
  const fromProject: ValueSource = files.project ? { kind: 'project-file', file: files.project } : fromUser
  const flag = (property: keyof CliOptions): ValueSource | undefined => {
    const name = given.get(property)
    return name === undefined ? undefined : { kind: 'flag', flag: name }
  }
  /** The value of one setting: the flag's, else the project's, else the user's, else the default. */
  function pick<T>(
    name: string,
    property: keyof CliOptions | undefined,
    projectValue: T | undefined,
    userValue: T | undefined,
  ): T | undefined {
    const byFlag = property && flag(property)
    if (byFlag) {
      sources.set(name, byFlag)
      return undefined
    }
    if (projectValue !== undefined) {
      sources.set(name, fromProject)
      return projectValue
    }
    if (userValue !== undefined) {
      sources.set(name, fromUser)
      return userValue
    }
    sources.set(name, { kind: 'default' })
    return undefined
  }

  const parsed = input.parsed
  const merged: { -readonly [K in keyof CliOptions]: CliOptions[K] } = { ...parsed }
  const limits = (file: { limits?: LimitsEntry }) => file.limits ?? {}
  for (const option of LIMIT_OPTIONS) {
    const value = pick(`limits.${option}`, option, limits(project)[option], limits(user)[option])
    if (value !== undefined) merged[option] = value
  }
  const maxSubagents = pick(
    'limits.maxSubagents',
    'subagents',
    limits(project).maxSubagents,
    limits(user).maxSubagents,
  )
  const subagentMaxSteps = pick(
    'limits.subagentMaxSteps',
    'subagents',
    limits(project).subagentMaxSteps,
    limits(user).subagentMaxSteps,
  )
  if (!given.has('subagents') && (maxSubagents !== undefined || subagentMaxSteps !== undefined)) {
    merged.subagents = {
      ...(maxSubagents !== undefined && { maxConcurrent: maxSubagents }),
      ...(subagentMaxSteps !== undefined && { maxSteps: subagentMaxSteps }),
    }
  }
  const sandbox = pick('sandbox.mode', 'sandbox', undefined, user.sandbox?.mode)
  if (sandbox !== undefined) merged.sandbox = sandbox
  const network = pick('sandbox.network', 'sandboxNetwork', undefined, user.sandbox?.network)
  if (network !== undefined) merged.sandboxNetwork = network
  const logLevel = pick('logLevel', 'logLevel', undefined, user.logLevel)
  if (logLevel !== undefined) merged.logLevel = logLevel
  const defaultMode = pick('defaultMode', undefined, project.defaultMode, user.defaultMode)

  let fileModels: FileModels | undefined
  const modelFlag = MODEL_OPTIONS.map(flag).find((source) => source !== undefined)
  const providers = Object.entries(user.providers ?? {})
  if (modelFlag) sources.set('model', modelFlag)
  else if (providers.length > 0) {
    const all = providers.flatMap(([providerId, provider]) =>
      provider.models.map((model) => ({ id: `${providerId}/${model.name}`, providerId, provider, model })),
    )
    const wanted = project.defaultModel ?? user.defaultModel
    const wantedSource = project.defaultModel !== undefined ? fromProject : fromUser
    const chosen = wanted === undefined ? undefined : all.find((m) => m.id === wanted)
    if (wanted !== undefined && chosen === undefined) {
      problems.push({
        file: project.defaultModel !== undefined && files.project ? files.project : files.user,
        pointer: '/defaultModel',
        message: `${JSON.stringify(wanted)} is not a configured model: expected one of ${all.map((m) => m.id).join(', ')} (the first is used)`,
      })
    }
    const first = chosen ?? (all[0] as ConfiguredModel)
    fileModels = {
      models: [first, ...all.filter((m) => m !== first)],
      defaultSource: chosen ? wantedSource : { kind: 'default' },
    }
    merged.model = 'openai'
    sources.set('model', fromUser)
  } else sources.set('model', { kind: 'default' })

  const mcpServers = user.mcpServers ?? []
  const commandEnv = { pass: user.sandbox?.passEnv ?? [], deny: secretEnvNames(user, project) }
  const sampling = pick(
    'limits.mcpSamplingPerTurn',
    undefined,
    limits(project).mcpSamplingPerTurn,
    limits(user).mcpSamplingPerTurn,
  )
  return {
    options: merged,
    sources,
    fileModels,
    defaultMode,
    mcpServers,
    commandEnv,
    ...(sampling !== undefined && { mcpSamplingPerTurn: sampling }),
    problems,
    files,
  }
}

/** The variables the files name as holding secrets: the agent's own key, providers' keys, MCP servers' variables. */
function secretEnvNames(user: UserConfigFile, project: ProjectConfigFile): string[] {
  const names = new Set(['DSH_API_KEY'])
  for (const provider of Object.values(user.providers ?? {}))
    if (provider.apiKeyEnv !== undefined) names.add(provider.apiKeyEnv)
  for (const server of [...(user.mcpServers ?? []), ...(project.mcpServers ?? [])]) {
    if (server.type === 'http') continue
    for (const pair of server.env ?? []) names.add(pair.name)
  }
  return [...names]
}

/** `base` with each of `over` replacing the one of the same name, or added after them. */
export function mergeServers(
  base: readonly McpServerEntry[],
  over: readonly McpServerEntry[],
): McpServerEntry[] {
  const names = new Set(over.map((s) => s.name))
  return [...base.filter((s) => !names.has(s.name)), ...over]
}

/** The MCP servers of the project file that applies in `cwd`, and its problems. */
export async function projectServers(
  cwd: string,
  home?: string,
): Promise<{
  readonly file?: string
  readonly servers: readonly McpServerEntry[]
  readonly problems: readonly ConfigProblem[]
}> {
  const file = findProjectConfig(cwd, home)
  if (file === undefined) return { servers: [], problems: [] }
  const read = await readConfigFile(file, 'project')
  if (read.state === 'valid') return { file, servers: read.value.mcpServers ?? [], problems: [] }
  return { file, servers: [], problems: read.state === 'invalid' ? read.problems : [] }
}
