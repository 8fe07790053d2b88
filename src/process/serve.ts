import type { Readable } from 'node:stream'
import type { Logger } from 'cordis'
import type { ClientState } from '../acp/method.js'
import type { AgentInfo } from '../acp/server.js'
import type { AgentSetup } from '../acp/setup-port.js'
import { type ProtocolChoice, pinnedVersion } from '../acp/v2/version-choice.js'
import type { EarlyReplay } from '../acp/views/replay/shown-head.js'
import type { SessionModeId } from '../agent/config/modes.js'
import type { ModelProvider } from '../agent/index.js'
import { ignoredUsageSettings } from '../agent/notices/config-notices.js'
import { missingKeyNotice } from '../agent/providers/openai/index.js'
import type { CommandEnvPolicy } from '../agent/tools/command/command-env.js'
import { CommandSandbox, type SandboxState } from '../agent/tools/command/sandbox.js'
import type { SandboxMode } from '../agent/tools/command/sandbox-mode.js'
import { createApp } from '../app.js'
import { isPostgresUrl, resolveStoreDir } from '../persistence/index.js'
import { createSequentialIdGenerator } from '../session/index.js'
import type { CliOptions } from './cli-args.js'
import { LOG_LEVELS, routeLogsToStderr } from './logging.js'
import { exposedCollector, releaseMemoryOnClose } from './memory-release.js'
import { privatePaths } from './private-paths.js'
import { TranscriptRecorder } from './transcript.js'

/** What the command line did before the server was built (cli.ts). */
export interface ServeStart {
  readonly provider: ModelProvider
  readonly agentInfo: AgentInfo
  /** The input to serve, given back by whoever held it; paused until the connection reads it. */
  readonly takeInput: () => Readable
  /** Auth methods, stored keys, offered MCP servers (from the configuration files). */
  readonly setup?: AgentSetup
  /** The mode new sessions start in, when a configuration file says. */
  readonly defaultMode?: SessionModeId
  /** The models come from the configuration files (their keys are checked per provider). */
  readonly modelsFromFile?: boolean
  /** What was wrong with the configuration files, logged at start (and told each session). */
  readonly configProblems?: readonly string[]
  /** MCP servers: sampling requests one server may make per turn (the configuration's limit). */
  readonly mcpSamplingPerTurn?: number
  /** Which variables of this process commands see (the configuration's pass and deny lists). */
  readonly commandEnv?: CommandEnvPolicy
  /** The `initialize` already answered on that input (with `capabilitiesAtStart`). */
  readonly early?: { readonly client: ClientState; readonly replay?: EarlyReplay }
}

/** What building the server needs of the start: everything but stdio's input. */
export type AppStart = Omit<ServeStart, 'takeInput' | 'early'>

/**
 * Builds the server (cordis app, store, agent) and serves ACP on stdio until the input ends, the
 * output closes or a signal arrives; then settles, flushes every session and stops.
 */
export async function serve(options: CliOptions, start: ServeStart): Promise<void> {
  const { app, logger, recorder } = await buildServer(options, start)
  const input = start.takeInput()
  const connection = app.ctx.acp.serve(input, process.stdout, {
    ...(recorder && { onWireLine: recorder.tap }),
    ...answeredEarly(start, logger),
  })
  input.resume()
  // Forced collections only when asked for by starting Node with --expose-gc.
  if (exposedCollector()) app.ctx.on('session/disposed', releaseMemoryOnClose())
  let stopping = false
  const shutdown = async (why: string) => {
    if (stopping) return
    stopping = true
    logger.info(`shutting down: ${why}`)
    await app.ctx.agent.cancelAll()
    await connection.settle()
    try {
      await app.ctx.sessions.closeAll()
    } catch (error) {
      logger.error(`some sessions could not be flushed: ${(error as Error).message}`)
      process.exitCode = 1
    }
    await connection.drain()
    connection.dispose()
    await app.ctx.stop()
    await recorder?.close()
    process.stdin.destroy()
  }
  // SIGHUP: the editor closed its terminal. Every ending cancels running turns (recorded, and
  // answered when stdout is still open): the client is gone, nobody waits for a turn's end.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => void shutdown(signal))
  }
  const reason = await Promise.race([
    connection.closed.then(() => 'stdin closed'),
    connection.outputClosed.then(() => 'stdout closed'),
  ])
  await shutdown(reason)
}

/**
 * What the connection must know of what was written before it existed: the client of the
 * `initialize` answered early, and the head of a `session/load` replay sent early (logged, debug).
 */
function answeredEarly(
  start: ServeStart,
  logger: Logger,
): { client?: ClientState; earlyReplay?: EarlyReplay } {
  const early = start.early
  if (!early) return {}
  const replay = early.replay
  if (!replay) return { client: early.client }
  logger.debug(
    `session/load ${JSON.stringify(replay.requestId)}: the updates through seq ${replay.head.sentThrough} were sent before the server was built`,
  )
  return { client: early.client, earlyReplay: replay }
}

/**
 * Builds the cordis app (store, agent, ACP methods) from the options, logs what the start found
 * wrong, and opens the transcript when asked (`recorder.tap` records a connection's wire lines).
 */
export async function buildServer(options: CliOptions, start: AppStart) {
  routeLogsToStderr(LOG_LEVELS[options.logLevel])
  const storeDir = options.storeDir === undefined ? resolveStoreDir(process.env) : options.storeDir
  let logger: Logger | undefined
  const sandbox = new CommandSandbox({
    mode: options.sandbox,
    network: options.sandboxNetwork,
    ...(start.commandEnv && { env: start.commandEnv }),
    hidden: privatePaths({
      // A database is no path a command could read.
      storeDir: storeDir !== null && isPostgresUrl(storeDir) ? null : storeDir,
      defaultStore: options.storeDir === undefined,
      ...(options.transcript !== undefined && { transcript: options.transcript }),
    }),
    onProbed: (state) => {
      if (logger) sayConfinement(logger, state, options.sandbox)
    },
  })
  const notices = ignoredUsageSettings(start.provider, {
    ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
    ...(options.prices !== undefined && { prices: options.prices }),
  })
  const app = await createApp({
    storeDir,
    commandSandbox: sandbox,
    model: options.model,
    provider: start.provider,
    ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
    ...(options.mcpTimeoutMs !== undefined && { mcpTimeoutMs: options.mcpTimeoutMs }),
    ...(start.mcpSamplingPerTurn !== undefined && { mcpSamplingPerTurn: start.mcpSamplingPerTurn }),
    subagents: options.subagents,
    compaction: {
      ...(options.compactAt !== undefined && { compactAt: options.compactAt }),
      // The provider's, as usage_update's size: the flag, the configuration, else the table.
      contextWindow: (model) =>
        start.provider.contextWindow?.(model ?? start.provider.models?.[0]?.id ?? start.provider.name),
    },
    ...(start.setup && { setup: start.setup }),
    ...(start.defaultMode !== undefined && { defaultMode: start.defaultMode }),
    fork: options.fork,
    ...protocolVersionOf(options.protocol),
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    agentInfo: start.agentInfo,
    notices,
    ...(options.fakeClock !== undefined && { clock: () => options.fakeClock as number }),
    ...(options.idPrefix !== undefined && { idGenerator: createSequentialIdGenerator(options.idPrefix) }),
  })
  logger = app.ctx.logger('dsh-acp')
  for (const problem of start.configProblems ?? []) logger.error(`configuration ignored: ${problem}`)
  const keyNotice = start.modelsFromFile
    ? undefined
    : missingKeyNotice(options.model, options.baseUrl, process.env.DSH_API_KEY)
  if (keyNotice) logger[keyNotice.level](keyNotice.text)
  for (const notice of notices) logger.warn(`${notice.title}: ${notice.description ?? ''}`)
  // Probed soon after start, in the background (said once, see sayConfinement), not while the
  // first requests are served: the probe starts a process. A first command probes sooner itself.
  setTimeout(() => void sandbox.probe(), SANDBOX_PROBE_DELAY_MS).unref()
  const recorder =
    options.transcript !== undefined
      ? new TranscriptRecorder(options.transcript, {
          onStopped: (error) =>
            logger.warn(`the transcript stopped recording (${error.message}); serving goes on`),
        })
      : undefined
  const tap = (direction: 'in' | 'out', line: string) => recorder?.record(direction, line)
  return { app, logger, recorder: recorder && { tap, close: () => recorder.close() } }
}

/** How long after start the sandbox is probed when no command asked first. */
const SANDBOX_PROBE_DELAY_MS = 1000

/** Says at start (once) when `run_command` runs unconfined, or will refuse to run. */
function sayConfinement(logger: Logger, state: SandboxState, mode: SandboxMode): void {
  if (state.sandboxed) return
  if (mode === 'bwrap')
    logger.error(`run_command will refuse local commands: the sandbox is required but ${state.reason}`)
  else if (mode === 'off')
    logger.info('run_command runs local commands without a sandbox, as --sandbox off asks')
  else logger.warn(`run_command runs local commands WITHOUT a sandbox: ${state.reason}`)
}

/** `--protocol` as the app's `protocolVersion` (nothing for `auto`). */
function protocolVersionOf(choice: ProtocolChoice): { protocolVersion?: number } {
  const pinned = pinnedVersion(choice)
  return pinned === undefined ? {} : { protocolVersion: pinned }
}
