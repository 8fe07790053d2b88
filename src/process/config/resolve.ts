import type { CliOptions } from '../cli-args.js'
import { trustFile } from '../trust/trust-store.js'
import { createWorkspaceTrust, type ProcessTrust, type ProjectAccess } from '../trust/workspace-trust.js'
import {
  type ConfiguredModel,
  configuredModels,
  namedModels,
  namesAnotherServer,
  withImageInput,
} from './file-models.js'
import type {
  LimitsEntry,
  McpServerEntry,
  ModeName,
  ProjectConfigFile,
  UserConfigFile,
} from './file-types.js'
import { givenProperties } from './given-flags.js'
import { credentialsFile, userConfigFile } from './paths.js'
import type { ConfigProblem } from './problems.js'
import { readCredentials } from './providers/credentials.js'
import { readConfigFile } from './read-file.js'

/** Where one value of the effective configuration came from. */
export type ValueSource =
  | { readonly kind: 'flag'; readonly flag: string }
  | { readonly kind: 'user-file'; readonly file: string }
  | { readonly kind: 'project-file'; readonly file: string }
  | { readonly kind: 'default' }

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
  /** The models from the files; undefined when the command line named a server, or no file has providers. */
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
    /** The project file of the process's cwd, used (its workspace is trusted). */
    readonly project: string | undefined
    /** The project file of the process's cwd, found and ignored: its workspace is not trusted. */
    readonly ignoredProject: string | undefined
    readonly trust: string
  }
  /** Workspace trust, kept in `files.trust`: which project files sessions may use. */
  readonly trust: ProcessTrust
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
/** The options about the model: without configured providers, the first given is the model's source. */
const MODEL_OPTIONS = ['model', 'baseUrl', 'modelName', 'imageInput', 'contextWindow'] as const

/** Reads the files and merges them under the flags (see {@link ResolvedConfig}). */
export async function resolveConfig(input: ResolveInput): Promise<ResolvedConfig> {
  const env = input.env ?? process.env
  const trustAt = trustFile(env, input.home)
  const trust = createWorkspaceTrust(trustAt, input.home)
  // At start only a lasting decision counts (no session exists yet): see docs/workspace-trust.md.
  const access = trust.access(input.cwd ?? process.cwd())
  const files = {
    user: userConfigFile(env, input.home),
    credentials: credentialsFile(env, input.home),
    project: access.file,
    ignoredProject: access.ignored,
    trust: trustAt,
  }
  const problems: ConfigProblem[] = [...access.problems]
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
  // The user's file only: a project's file never chooses where the user's sessions go.
  const store = pick('store', 'storeDir', undefined, user.store)
  if (store !== undefined) merged.storeDir = store
  const defaultMode = pick('defaultMode', undefined, project.defaultMode, user.defaultMode)

  let fileModels: FileModels | undefined
  const all = configuredModels(user.providers ?? {})
  if (namesAnotherServer(given, parsed) || all.length === 0) {
    sources.set('model', MODEL_OPTIONS.map(flag).find(Boolean) ?? { kind: 'default' })
  } else {
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
    const byName = flag('modelName')
    const models =
      byName && parsed.modelName !== undefined
        ? namedModels(parsed.modelName, all, first)
        : [first, ...all.filter((m) => m !== first)]
    fileModels = {
      models: parsed.imageInput ? withImageInput(models) : models,
      defaultSource: byName ?? (chosen ? wantedSource : { kind: 'default' }),
    }
    merged.model = 'openai'
    sources.set('model', byName ?? fromUser)
  }

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
    trust,
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

/** The MCP servers of the project file a session may use (see `ProcessTrust.access`), and its problems. */
export async function projectServers(access: ProjectAccess): Promise<{
  readonly servers: readonly McpServerEntry[]
  readonly problems: readonly ConfigProblem[]
}> {
  if (access.file === undefined) return { servers: [], problems: access.problems }
  const read = await readConfigFile(access.file, 'project')
  const problems = [...access.problems, ...(read.state === 'invalid' ? read.problems : [])]
  return { servers: read.state === 'valid' ? (read.value.mcpServers ?? []) : [], problems }
}
