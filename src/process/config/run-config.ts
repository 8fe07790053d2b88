import type { AgentSetup } from '../../acp/setup-port.js'
import type { SessionModeId } from '../../agent/config/modes.js'
import { createProvider, type ProviderOptions } from '../../agent/providers/index.js'
import { createConfiguredProvider } from '../../agent/providers/openai/index.js'
import type { ModelProvider } from '../../agent/types.js'
import type { CliOptions } from '../cli-args.js'
import { createAgentSetup } from './agent-setup.js'
import { describeProblem } from './problems.js'
import { findKey } from './providers/provider-keys.js'
import { liveServers } from './providers/provider-settings.js'
import { type ResolvedConfig, resolveConfig } from './resolve.js'

/** What serving needs from the command line and the configuration files. */
export interface RunConfig {
  readonly options: CliOptions
  readonly provider: ModelProvider
  readonly setup: AgentSetup
  readonly defaultMode: SessionModeId | undefined
  readonly modelsFromFile: boolean
  /** Each problem of the configuration files, in one line. */
  readonly problems: readonly string[]
  readonly resolved: ResolvedConfig
}

/**
 * Resolves the configuration (flags over files over defaults) and makes the model provider: the
 * files' models when they have providers and no model flag was given, else the flags' (echo when
 * there are neither). A bad model flag still throws, as before the files existed.
 */
export async function runConfig(argv: readonly string[], parsed: CliOptions): Promise<RunConfig> {
  const resolved = await resolveConfig({ argv, parsed })
  const options = resolved.options
  const env = process.env
  const limits = {
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    ...(options.requestTimeout !== undefined && { timeoutMs: options.requestTimeout * 1000 }),
  }
  let provider: ModelProvider
  const fileModels = resolved.fileModels
  const flagTerms = {
    ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
    ...(options.prices !== undefined && { prices: options.prices }),
  }
  if (fileModels) {
    const providers = new Map(fileModels.models.map((m) => [m.providerId, m.provider]))
    provider = createConfiguredProvider(
      fileModels.models,
      (id) => {
        const entry = providers.get(id)
        return entry && findKey(id, entry, resolved.files.credentials, env)?.key
      },
      { ...limits, ...flagTerms },
      liveServers(resolved.files.user),
    )
  } else {
    const modelOptions: ProviderOptions = {
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...(options.modelName !== undefined && { modelName: options.modelName }),
      ...(options.imageInput && { imageInput: true }),
      ...(env.DSH_API_KEY !== undefined && { apiKey: env.DSH_API_KEY }),
      ...flagTerms,
      ...limits,
    }
    provider = createProvider(options.model, modelOptions)
  }
  const setup = createAgentSetup(resolved, {
    command: process.execPath,
    commandArgs: process.argv[1] === undefined ? [] : [process.argv[1]],
  })
  return {
    options,
    provider,
    setup,
    defaultMode: resolved.defaultMode,
    modelsFromFile: fileModels !== undefined,
    problems: resolved.problems.map(describeProblem),
    resolved,
  }
}
