import { statSync } from 'node:fs'
import type { CliOptions } from '../../cli-args.js'
import type { McpServerEntry } from '../file-types.js'
import { describeProblem } from '../problems.js'
import { readCredentials } from '../providers/credentials.js'
import { findKey, needsKey } from '../providers/provider-keys.js'
import { projectServers, type ResolvedConfig, resolveConfig, type ValueSource } from '../resolve.js'
import { reportLines } from './report-table.js'

/** What `dsh-acp config` shows of a secret: never a character of it. */
const MASK = '********'

/** `dsh-acp config`: the effective configuration of a run with these flags in this directory. */
export async function printConfig(
  argv: readonly string[],
  parsed: CliOptions,
  print: (text: string) => void,
): Promise<void> {
  const resolved = await resolveConfig({ argv, parsed })
  print(await configReport(resolved, process.env, process.cwd()))
}

/**
 * The report: the files, then each value with where it came from (a flag, the user's file, the
 * project's file, the built-in default), the models with their key's state and source, the MCP
 * servers (secret values masked), and every problem found.
 */
export async function configReport(
  resolved: ResolvedConfig,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<string> {
  const { options, files } = resolved
  const rows: [string, string, string][] = []
  const source = (name: string) => sourceText(resolved.sources.get(name))
  const problemFiles = new Set(resolved.problems.map((p) => p.file))
  const fileState = (file: string | undefined) =>
    file === undefined
      ? 'none'
      : problemFiles.has(file)
        ? `${file} (IGNORED: see the problems below)`
        : exists(file)
          ? file
          : `${file} (absent)`
  const lines = [
    'dsh-acp configuration (flags > project file > user file > built-in defaults)',
    '',
    `user file:         ${fileState(files.user)}`,
    `project file:      ${files.ignoredProject !== undefined ? `${files.ignoredProject} (IGNORED: its folder is not trusted; see dsh-acp trust)` : fileState(files.project)}`,
    `trust file:        ${files.trust}`,
    `credentials file:  ${credentialsState(files.credentials)}`,
    '',
  ]
  const models = resolved.fileModels
  if (models) {
    rows.push(['model', models.models[0]?.id ?? '', sourceText(models.defaultSource)])
    for (const m of models.models) {
      const key = findKey(m.providerId, m.provider, files.credentials, env)
      const keyText = key
        ? `key ${MASK} from ${key.source.kind === 'env' ? `$${key.source.name}` : 'the credentials file'}`
        : needsKey(m.provider)
          ? `NO KEY${m.provider.apiKeyEnv ? ` ($${m.provider.apiKeyEnv} is not set)` : ''}: run dsh-acp setup`
          : 'no key needed'
      const extras = [
        m.model.contextWindow !== undefined && `window ${m.model.contextWindow}`,
        m.model.prices &&
          `prices ${m.model.prices.input}/${m.model.prices.cachedInput ?? '-'}/${m.model.prices.output} ${m.model.prices.currency ?? 'USD'} per M in/cached/out`,
        m.model.imageInput && 'images',
        m.model.reasoningEffort && `effort ${m.model.reasoningEffort}`,
      ].filter(Boolean)
      rows.push([
        `  ${m.id}`,
        `${m.provider.baseUrl}, ${keyText}${extras.length ? `; ${extras.join(', ')}` : ''}`,
        'user file',
      ])
    }
  } else {
    rows.push(['model', options.model, source('model')])
    if (options.baseUrl !== undefined) rows.push(['  base URL', options.baseUrl, source('model')])
    if (options.modelName !== undefined) rows.push(['  model names', options.modelName, source('model')])
    if (options.model.startsWith('openai')) {
      const key = env.DSH_API_KEY
      rows.push(['  key', key ? `${MASK} from $DSH_API_KEY` : '$DSH_API_KEY is not set', 'environment'])
    }
  }
  rows.push(['defaultMode', resolved.defaultMode ?? 'ask', source('defaultMode')])
  for (const name of ['maxSteps', 'mcpTimeoutMs', 'maxRetries', 'requestTimeout', 'maxLineBytes'] as const) {
    rows.push([`limits.${name}`, String(options[name] ?? defaultLimit(name)), source(`limits.${name}`)])
  }
  const subagents = options.subagents
  rows.push([
    'limits.maxSubagents',
    subagents === false ? 'off (--no-subagents)' : String(subagents.maxConcurrent ?? 4),
    source('limits.maxSubagents'),
  ])
  rows.push([
    'limits.subagentMaxSteps',
    subagents === false ? 'off' : String(subagents.maxSteps ?? options.maxSteps ?? 32),
    source('limits.subagentMaxSteps'),
  ])
  rows.push(['sandbox.mode', options.sandbox, source('sandbox.mode')])
  rows.push(['sandbox.network', String(options.sandboxNetwork), source('sandbox.network')])
  rows.push(['logLevel', options.logLevel, source('logLevel')])
  const project = await projectServers(resolved.trust.access(cwd))
  const servers: [McpServerEntry, string][] = [
    ...resolved.mcpServers
      .filter((s) => !project.servers.some((p) => p.name === s.name))
      .map((s): [McpServerEntry, string] => [s, 'user file']),
    ...project.servers.map((s): [McpServerEntry, string] => [s, 'project file']),
  ]
  rows.push([
    'mcpServers',
    servers.length === 0 ? 'none (the client may send its own)' : `${servers.length}`,
    '',
  ])
  for (const [server, from] of servers) rows.push([`  ${server.name}`, serverText(server), from])
  lines.push(...reportLines(rows))
  const problems = [...resolved.problems, ...project.problems]
  if (problems.length > 0) {
    lines.push('', `problems (${problems.length}):`, ...problems.map((p) => `  ${describeProblem(p)}`))
  }
  return `${lines.join('\n')}\n`
}

function sourceText(source: ValueSource | undefined): string {
  if (source === undefined || source.kind === 'default') return 'default'
  if (source.kind === 'flag') return `flag ${source.flag}`
  return source.kind === 'user-file' ? 'user file' : 'project file'
}

function defaultLimit(
  name: 'maxSteps' | 'mcpTimeoutMs' | 'maxRetries' | 'requestTimeout' | 'maxLineBytes',
): number {
  return {
    maxSteps: 32,
    mcpTimeoutMs: 60_000,
    maxRetries: 3,
    requestTimeout: 300,
    maxLineBytes: 32 * 1024 * 1024,
  }[name]
}

function serverText(server: McpServerEntry): string {
  if (server.type === 'http') {
    const headers = (server.headers ?? []).map((h) => `${h.name}: ${MASK}`)
    return `http ${server.url}${headers.length ? ` (${headers.join(', ')})` : ''}`
  }
  const env = (server.env ?? []).map((e) => `${e.name}=${MASK}`)
  return `${[server.command, ...(server.args ?? [])].join(' ')}${env.length ? ` (${env.join(', ')})` : ''}`
}

function exists(file: string): boolean {
  try {
    statSync(file)
    return true
  } catch {
    return false
  }
}

function credentialsState(file: string): string {
  if (!exists(file)) return `${file} (absent)`
  const { keys } = readCredentials(file)
  const mode = (statSync(file).mode & 0o777).toString(8).padStart(4, '0')
  const ids = Object.keys(keys)
  return `${file} (mode ${mode}; keys for ${ids.length === 0 ? 'no provider' : ids.join(', ')})`
}
