import type { StopReason as AcpStopReason, SessionUpdate as AcpWireUpdate } from '@agentclientprotocol/sdk'
import type * as unstable from '@agentclientprotocol/sdk/unstable'
import type { ConfigValue } from '../config.js'
import type { SessionId } from '../ids.js'
import type { CommandOutputUpdate } from './command-output.js'
import type { CompactionUpdate } from './compaction-updates.js'
import type { WholeMessageUpdate } from './whole-messages.js'

/**
 * A stable ACP `session/update` variant that has one form for every client (the SDK's type, less the
 * variants whose canonical form is ours: compactions and notices).
 */
export type AcpSessionUpdate = Exclude<
  AcpWireUpdate,
  { sessionUpdate: 'compaction_update' | 'compaction_summary_chunk' | 'notice' }
>

/**
 * The unstable ACP `subagent_update` (not in the stable ACP types): a parent's report of a child
 * session's title, description and state.
 */
export type SubagentSessionUpdate = unstable.SubagentUpdate & { sessionUpdate: 'subagent_update' }

/** The state a {@link SubagentSessionUpdate} reports (`running`, `idle`, `unknown`, ...). */
export type SubagentState = unstable.StateUpdate

/**
 * The unstable ACP `plan_update` and `plan_removed`: what a stable `plan` is sent as to clients with
 * the unstable `plan` capability.
 */
export type PlanSessionUpdate =
  | (unstable.PlanUpdate & { sessionUpdate: 'plan_update' })
  | (unstable.PlanRemoved & { sessionUpdate: 'plan_removed' })

/**
 * A notice (ACP `notice`) as the agent emits it: `fallback` is the agent message a client that
 * shows no notices gets instead (absent: nothing, the source logged it).
 */
export type NoticeSessionUpdate = Extract<AcpWireUpdate, { sessionUpdate: 'notice' }> & {
  readonly fallback?: string
}

/**
 * A turn of the session started or ended, told live to a client that did not start it (another
 * connection's or another process's prompt): ACP v2's `state_update`. An ACP v1 client is sent
 * nothing of it: it learns a turn's end from `_meta.dsh.turnEnd` on the turn's last update.
 */
export interface TurnStateUpdate {
  readonly sessionUpdate: 'turn_state'
  readonly state: 'running' | 'idle'
  /** An ended turn's stop reason, when its end has one (a failed turn's has none). */
  readonly stopReason?: AcpStopReason
}

/**
 * What the agent and the session emit for one `session/update`: the richest (canonical) form of
 * each update. A client's view (acp/views/) renders it for what that client advertised: a `plan`,
 * a compaction, a notice or a `subagent_update` looks different to different clients; everything
 * else is sent as it is.
 */
export type SessionUpdate =
  | AcpSessionUpdate
  | CompactionUpdate
  | NoticeSessionUpdate
  | SubagentSessionUpdate
  | WholeMessageUpdate
  | CommandOutputUpdate
  | TurnStateUpdate

/** What one `session/update` carries on the wire (ACP v1, stable and unstable variants). */
export type WireUpdate = AcpWireUpdate | SubagentSessionUpdate | PlanSessionUpdate

/**
 * The params of one ACP `session/update` notification. `_meta.dsh.seq` is the event it came from
 * (absent for updates that come from no event, such as the command list); `_meta.dsh.turnEnd`
 * marks the last update of a replayed turn.
 */
export interface SessionUpdateNotification<U = SessionUpdate> {
  readonly sessionId: SessionId
  readonly update: U
  readonly _meta?: { readonly dsh: { readonly seq: number; readonly turnEnd?: ReplayedTurnEnd } }
}

/** A `session/update` notification's params as a client's view rendered them for the wire. */
export type WireNotification = SessionUpdateNotification<WireUpdate>

/**
 * How a replayed turn ended, on its last update (live, the client had it from the prompt's answer):
 * the seq of its `turn/end`, the reason that records, the ACP stop reason when the reason has one
 * (`end_turn`, `cancelled`, `max_tokens`, `max_turn_requests`, `refusal`), and for a turn that
 * failed (`error`) what failed.
 */
export interface ReplayedTurnEnd {
  readonly seq: number
  readonly reason: string
  readonly stopReason?: AcpStopReason
  readonly error?: string
}

/** What the projection needs from outside the log. */
export interface ProjectionOptions {
  /**
   * The title in the session's header (a fork child's own): with one, the first prompt derives
   * none. Without one, the first `user/message` that yields a title is followed by a
   * `session_info_update` with it, as it was sent live.
   */
  readonly headerTitle?: string
  /**
   * The updates a `config/set` stands for, given the values recorded so far (this one included)
   * and the option it set: the agent knows the options and their defaults, the log only the
   * values. Absent: a `config/set` projects to nothing.
   */
  readonly configUpdates?: (values: Readonly<Record<string, ConfigValue>>, option: string) => SessionUpdate[]
}
