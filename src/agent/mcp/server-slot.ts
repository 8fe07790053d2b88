import type { Logger } from 'cordis'
import type { Session, SessionUpdate } from '../../session/index.js'
import type { ToolRegistry } from '../tools/registry.js'
import type { ElicitationModes, McpSampler } from './asks/mcp-asks.js'
import type { McpConnection } from './mcp-connection.js'
import type { McpNotices } from './mcp-notices.js'
import type { McpServerConfig } from './server-config.js'
import type { StartClock } from './start-wait.js'

/** What `McpSessions` (session-mcp.ts) is made with and keeps per session and per server. */

/** Sends one `session/update` for a session, tagged with the seq of the event it stands for. */
export type SessionNotifier = (update: SessionUpdate, seq: number) => void

/** One server of a session's `mcpServers`: starting, ready (connected), or gone (failed, lost, retired). */
export interface ServerSlot {
  readonly config: McpServerConfig
  /** The question modes the server was told of (its client's when it was set). */
  readonly elicitation: ElicitationModes | undefined
  /** The config (and question modes) as text: a reload with the same text at the same place reuses the slot. */
  readonly key: string
  readonly rank: number
  state: 'starting' | 'ready' | 'gone'
  connection: McpConnection | undefined
  /** The user was told it was still starting when a model request went out. */
  told: boolean
  /** When its start began, and when it connected or failed ({@link StartClock.now}). */
  readonly startedAt: number
  settledAt: number | undefined
  /** How long (ms) a model request waited for it before going out without it. */
  held: number | undefined
  readonly abort: AbortController
  /** Settles (never rejects) once the opening ended, connected or not. */
  opened: Promise<void>
}

/** A server a session wants: its config, its place in the list, the question modes it is told of. */
export interface WantedServer {
  readonly config: McpServerConfig
  readonly rank: number
  readonly elicitation: ElicitationModes | undefined
}

/** A slot for `wanted`, starting now (`startedAt`); its `opened` is set by whoever opens it. */
export function newServerSlot({ config, rank, elicitation }: WantedServer, startedAt: number): ServerSlot {
  return {
    config,
    elicitation,
    key: configKey(config, elicitation),
    rank,
    state: 'starting',
    connection: undefined,
    told: false,
    startedAt,
    settledAt: undefined,
    held: undefined,
    abort: new AbortController(),
    opened: Promise.resolve(),
  }
}

/** The config (and question modes) as text: what a reload compares. */
export function configKey(config: McpServerConfig, elicitation: ElicitationModes | undefined): string {
  return JSON.stringify([config, elicitation?.form === true, elicitation?.url === true])
}

export interface SessionServers {
  slots: ServerSlot[]
  readonly notices: McpNotices
  readonly session: Session
}

export interface McpSessionsOptions {
  readonly registry: ToolRegistry
  readonly logger: Logger
  /** Limit (ms) for connecting, listing and each call. */
  readonly timeoutMs: number
  /** True while a turn runs on the session (then notices wait for {@link McpSessions.flush}). */
  readonly isBusy: (sessionId: string) => boolean
  /** Answers servers' sampling requests (mcp-asks.ts). Absent: servers are not offered sampling. */
  readonly sampler?: McpSampler
  /** Sampling requests one server may make per turn. Default: DEFAULT_SAMPLING_PER_TURN (asks/sampling-bounds.ts). */
  readonly samplingPerTurn?: number
  /** The time the wait for servers still starting is measured in (tests inject one). */
  readonly clock?: StartClock
}
