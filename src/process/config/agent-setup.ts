import type * as acp from '@agentclientprotocol/sdk'
import type { AgentSetup, SetupOffer } from '../../acp/setup-port.js'
import { missingKeyNotice } from '../../agent/providers/openai/index.js'
import type { McpServerEntry } from './file-types.js'
import { type ConfigProblem, configProblemsNotice, noticeAsMessage } from './problems.js'
import { removeKeys } from './providers/credentials.js'
import { findKey, needsKey } from './providers/provider-keys.js'
import { providerSettings } from './providers/provider-settings.js'
import { mergeServers, projectServers, type ResolvedConfig } from './resolve.js'

/** The `agent` auth method: the key is already where the configuration says. */
export const KEY_METHOD_ID = 'dsh-acp-api-key'
/** The `terminal` auth method: the client runs `dsh-acp setup` in a terminal. */
export const SETUP_METHOD_ID = 'dsh-acp-setup'

export interface SetupContext {
  /** How to run this program again: the Node binary and the CLI script (for the `_meta` terminal form). */
  readonly command: string
  readonly commandArgs: readonly string[]
  readonly env?: NodeJS.ProcessEnv
  readonly home?: string
}

/**
 * The set-up of one run (see `AgentSetup`), from its resolved configuration. Keys are looked up
 * each time they are asked for, so `dsh-acp setup` run from the editor's terminal applies without
 * a restart (for the providers the configuration already had).
 */
export function createAgentSetup(resolved: ResolvedConfig, context: SetupContext): AgentSetup {
  const env = context.env ?? process.env
  const credentials = resolved.files.credentials
  const defaultModel = resolved.fileModels?.models[0]

  /** Why the default model cannot be asked now, else undefined. */
  const missingKey = (): string | undefined => {
    if (defaultModel === undefined || !needsKey(defaultModel.provider)) return undefined
    if (findKey(defaultModel.providerId, defaultModel.provider, credentials, env)) return undefined
    const { providerId, provider } = defaultModel
    const how =
      provider.apiKeyEnv !== undefined
        ? `set ${provider.apiKeyEnv} in the environment that starts dsh-acp, or run "dsh-acp setup" in a terminal to store a key`
        : `run "dsh-acp setup" in a terminal to store one (or name the variable holding it as apiKeyEnv of providers.${providerId} in ${resolved.files.user})`
    return `the model ${defaultModel.id} needs an API key for ${provider.baseUrl} and none is set: ${how}`
  }

  const setupLabel = 'Set up a model provider and its API key'
  const terminalAuth = {
    'terminal-auth': {
      label: setupLabel,
      command: context.command,
      args: [...context.commandArgs, 'setup'],
      env: {},
    },
  }

  return {
    authMethods(capabilities: acp.ClientCapabilities | undefined): acp.AuthMethod[] {
      const methods: acp.AuthMethod[] = [
        {
          id: KEY_METHOD_ID,
          name: 'Use the configured API key',
          description:
            'The key from the environment variable the configuration names, or the one dsh-acp setup stored. Local servers need none.',
        },
      ]
      const description =
        'Runs dsh-acp setup: choose a provider (DeepSeek, OpenAI, OpenRouter, Ollama, llama.cpp, vLLM or your own), enter its key, pick models.'
      if (capabilities?.auth?.terminal === true) {
        methods.push({
          type: 'terminal',
          id: SETUP_METHOD_ID,
          name: setupLabel,
          description,
          args: ['setup'],
          env: {},
          _meta: terminalAuth,
        })
      } else if (capabilities?._meta?.['terminal-auth'] === true) {
        // Zed's form from before `auth.terminal`: it runs `_meta["terminal-auth"]` itself.
        methods.push({ id: SETUP_METHOD_ID, name: setupLabel, description, _meta: terminalAuth })
      }
      return methods
    },

    async authenticate(methodId: string): Promise<void> {
      const missing = missingKey()
      if (missing !== undefined) throw new Error(missing)
      if (resolved.fileModels === undefined) {
        const notice = missingKeyNotice(resolved.options.model, resolved.options.baseUrl, env.DSH_API_KEY)
        if (notice?.level === 'warn') throw new Error(notice.text)
      }
      if (methodId !== KEY_METHOD_ID && methodId !== SETUP_METHOD_ID)
        throw new Error(`unknown method ${methodId}`)
    },

    async logout(): Promise<string> {
      const removed = removeKeys(credentials)
      return removed.length === 0 ? 'no key was stored' : `removed the stored keys of ${removed.join(', ')}`
    },

    missingAuth: missingKey,

    async offeredServers(cwd: string, sessionId?: string): Promise<SetupOffer> {
      const project = await projectServers(resolved.trust.access(cwd, sessionId))
      const servers = mergeServers(resolved.mcpServers, project.servers).map(toAcpServer)
      const problems = dedupe([...resolved.problems, ...project.problems])
      const notice = configProblemsNotice(problems)
      return { servers, ...(notice && { message: noticeAsMessage(notice), notice }) }
    },

    trust: resolved.trust,
    providers: providerSettings(resolved.files.user, resolved.files.credentials, env),
  }
}

/** A configured server as ACP gives it; `roots: false` becomes `_meta.dsh.roots` (see mcpServerConfigs). */
function toAcpServer(entry: McpServerEntry): acp.McpServer {
  const meta = entry.roots === false ? { _meta: { dsh: { roots: false } } } : {}
  if (entry.type === 'http') {
    return {
      type: 'http',
      name: entry.name,
      url: entry.url,
      headers: (entry.headers ?? []).map(toAcpPair),
      ...meta,
    }
  }
  return {
    name: entry.name,
    command: entry.command,
    args: [...(entry.args ?? [])],
    env: (entry.env ?? []).map(toAcpPair),
    ...meta,
  }
}

/** A configured pair as ACP gives it; `secret: true` becomes `_meta.dsh.secret` (see mcpServerConfigs). */
function toAcpPair(pair: { name: string; value: string; secret?: boolean }): acp.EnvVariable {
  return {
    name: pair.name,
    value: pair.value,
    ...(pair.secret === true && { _meta: { dsh: { secret: true } } }),
  }
}

function dedupe(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const seen = new Map(problems.map((p) => [`${p.file}\n${p.pointer}\n${p.message}`, p]))
  return [...seen.values()]
}
