import { Context } from 'cordis'
import { acpPlugin, forkPlugin } from './acp/plugin.js'
import type { AgentInfo } from './acp/server.js'
import type { AgentSetup } from './acp/setup-port.js'
import type { SessionModeId } from './agent/config/modes.js'
import {
  agentPlugin,
  builtinTools,
  type CommandSandbox,
  type CompactionSettings,
  type ModelProvider,
  type Notice,
  type SubagentConfig,
} from './agent/index.js'
import { createProvider, type ProviderOptions } from './agent/providers/index.js'
import { BlobDirectory, plugPersistence, StorePaths } from './persistence/index.js'
import { type Clock, type IdGenerator, sessionsPlugin } from './session/index.js'

export interface AppConfig {
  /** Where sessions live: a directory, or a PostgreSQL URL (`postgres://…`); `null` keeps them in memory only. */
  readonly storeDir: string | null
  /** `echo` (default), `script:<file>` or `openai`. */
  readonly model: string
  readonly modelOptions?: ProviderOptions
  /** The provider, when the caller already made it from `model` and `modelOptions`. */
  readonly provider?: ModelProvider
  /** Serve `session/fork` and advertise it. Default true. */
  readonly fork?: boolean
  readonly maxLineBytes?: number
  /** `--protocol`: the one ACP version served (1 or 2); absent: both, chosen per connection. */
  readonly protocolVersion?: number
  readonly maxSteps?: number
  /** MCP servers: ms allowed to connect, list tools and answer each call. */
  readonly mcpTimeoutMs?: number
  /** MCP servers: sampling requests one server may make per turn (default 10). */
  readonly mcpSamplingPerTurn?: number
  /** The `delegate` tool (fork-based subagents); `false` leaves it out. Default on. */
  readonly subagents?: false | SubagentConfig
  /** When conversations are compacted by themselves (the context window, the threshold). */
  readonly compaction?: CompactionSettings
  /** The mode a new session starts in. Default `ask`. */
  readonly defaultMode?: SessionModeId
  /** Auth methods, stored keys and the MCP servers every session is offered (acp/setup-port.ts). */
  readonly setup?: AgentSetup
  /** Where `run_command` runs local commands. Default: `auto`, hiding nothing beyond its own rules. */
  readonly commandSandbox?: CommandSandbox
  readonly agentInfo: AgentInfo
  /** Configuration notices (settings this run ignores), said to each client that shows notices. */
  readonly notices?: readonly Notice[]
  readonly clock?: Clock
  readonly idGenerator?: IdGenerator
}

export interface App {
  readonly ctx: Context
  /** The fork plugin's scope, so it can be disposed at run time. */
  readonly fork: { dispose(): unknown } | undefined
}

/**
 * Builds and starts the cordis context: which plugins run is decided here and only here. The
 * caller must route logs to stderr first (stdout is the protocol channel).
 */
export async function createApp(config: AppConfig): Promise<App> {
  const ctx = new Context()
  const errors: unknown[] = []
  ctx.on('internal/error', (error: unknown) => errors.push(error))
  ctx.plugin(sessionsPlugin, {
    ...(config.clock && { clock: config.clock }),
    ...(config.idGenerator && { idGenerator: config.idGenerator }),
  })
  const store = config.storeDir === null ? undefined : await plugPersistence(ctx, config.storeDir)
  // File checkpoints' large contents: beside a directory store; in the database with PostgreSQL.
  const checkpointBlobs =
    config.storeDir === null || store === undefined
      ? undefined
      : (store.blobs ?? new BlobDirectory(new StorePaths(config.storeDir).blobDir))
  const provider = config.provider ?? (await createProvider(config.model, config.modelOptions ?? {}))
  ctx.plugin(agentPlugin, {
    provider,
    ...(config.maxSteps !== undefined && { maxSteps: config.maxSteps }),
    ...(checkpointBlobs && { checkpointBlobs }),
    mcp: {
      ...(config.mcpTimeoutMs !== undefined && { timeoutMs: config.mcpTimeoutMs }),
      ...(config.mcpSamplingPerTurn !== undefined && { samplingPerTurn: config.mcpSamplingPerTurn }),
    },
    ...(config.subagents !== undefined && { subagents: config.subagents }),
    ...(config.compaction !== undefined && { compaction: config.compaction }),
    ...(config.defaultMode !== undefined && { defaultMode: config.defaultMode }),
    ...(config.commandSandbox && { tools: builtinTools({ sandbox: config.commandSandbox }) }),
    ...(config.notices !== undefined && { notices: config.notices }),
  })
  ctx.plugin(acpPlugin, {
    agentInfo: config.agentInfo,
    ...(config.setup && { setup: config.setup }),
    ...(config.maxLineBytes !== undefined && { maxLineBytes: config.maxLineBytes }),
    ...(config.protocolVersion !== undefined && { protocolVersion: config.protocolVersion }),
  })
  const fork = config.fork === false ? undefined : ctx.plugin(forkPlugin)
  await ctx.start()
  await ctx.lifecycle.flush()
  if (errors.length === 0) {
    // A database that cannot be reached or migrated fails the start, not the first request.
    await store?.ready().catch((error: unknown) => errors.push(error))
  }
  if (errors.length > 0) {
    await ctx.stop()
    throw errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]))
  }
  if (!ctx.get('acp')) throw new Error('the ACP server did not start (a required plugin is missing)')
  return { ctx, fork }
}
