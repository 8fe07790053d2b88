import type {
  StopReason as AcpStopReason,
  SessionUpdate as AcpWireUpdate,
  ToolCallContent,
  ToolKind,
} from '@agentclientprotocol/sdk'
import type * as unstable from '@agentclientprotocol/sdk/unstable'
import { assertNever } from '../../lib/assert-never.js'
import type { ConfigValue } from '../config.js'
import type { SessionId } from '../ids.js'
import {
  CLEAN_TURN_END_REASONS,
  type EventDataMap,
  type ExtensionEvent,
  type ExtensionEventDataMap,
  extensionData,
  isExtensionEvent,
  type JsonValue,
  type SessionEvent,
} from '../log/events.js'
import { messageIdOf } from '../log/message-ids.js'
import { titleFromContent } from '../title.js'
import type { CommandOutputUpdate } from './command-output.js'
import { type CompactionUpdate, compactionReplayed } from './compaction-updates.js'
import { goalInfoUpdate, goalOfEvent } from './goal-updates.js'
import { unansweredCallResult } from './history.js'
import { agentText, userMessage, type WholeMessageUpdate } from './whole-messages.js'

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

/** Text of a tool output for display: strings as they are, anything else as JSON. */
export function toolOutputText(output: JsonValue): string {
  return typeof output === 'string' ? output : JSON.stringify(output)
}

/** The tool kinds ACP defines; a call whose `kind` is anything else is shown as `other`. */
export const ACP_TOOL_KINDS = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
] as const satisfies readonly ToolKind[]

/** True when `kind` is one of {@link ACP_TOOL_KINDS}. */
export function isToolKind(kind: string): kind is ToolKind {
  return ACP_TOOL_KINDS.some((known) => known === kind)
}

/**
 * The update that announces a tool call: `pending` (ACP: not running yet, e.g. awaiting the user's
 * approval) until its result arrives as `completed` or `failed`.
 */
export function toolCallUpdate(
  data: Pick<EventDataMap['tool/call'], 'callId' | 'name' | 'input' | 'title' | 'kind' | 'locations'>,
): AcpSessionUpdate {
  return {
    sessionUpdate: 'tool_call',
    toolCallId: data.callId,
    title: data.title ?? data.name,
    kind: toolKind(data.kind),
    status: 'pending',
    ...(data.locations !== undefined && data.locations.length > 0 && { locations: [...data.locations] }),
    rawInput: data.input,
  }
}

function toolKind(kind: string | undefined): ToolKind {
  return kind !== undefined && isToolKind(kind) ? kind : 'other'
}

/** `session_info_update` with a title (ACP: sent when the title is derived or changes). */
export function titleUpdate(title: string, updatedAt: string): AcpSessionUpdate {
  return { sessionUpdate: 'session_info_update', title, updatedAt }
}

/** A chunk of an agent message; `messageId` names the `assistant/message` (see {@link messageIdOf}). */
export function messageChunk(text: string, messageId: string): AcpSessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, messageId }
}

/** A chunk of an agent thought; it shares the `messageId` of its `assistant/message`. */
export function thoughtChunk(text: string, messageId: string): AcpSessionUpdate {
  return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId }
}

/**
 * The update that reports a tool call's result: its `content` (ACP `ToolCallContent`: text, diff
 * or an embedded terminal) when the tool gave one, else the output as text.
 */
export function toolResultUpdate(
  callId: string,
  output: JsonValue,
  isError: boolean,
  content?: readonly ToolCallContent[],
): AcpSessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: callId,
    status: isError ? 'failed' : 'completed',
    content: content !== undefined ? [...content] : [textContent(toolOutputText(output))],
    rawOutput: output,
  }
}

function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } }
}

/**
 * A result's content as a replay shows it: an embedded terminal (whose id lived only as long as the
 * process that ran it) becomes the output as text; everything else stays.
 */
export function replayContent(
  content: readonly ToolCallContent[] | undefined,
  output: JsonValue,
): ToolCallContent[] | undefined {
  if (content === undefined) return undefined
  return content.map((item) => (item.type === 'terminal' ? textContent(toolOutputText(output)) : item))
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

/** The event a delegation appends to its parent when it spawned a subagent (a plugin event). */
export const SUBAGENT_SPAWNED = 'subagent:spawned' satisfies keyof ExtensionEventDataMap

/** The data of a `subagent:spawned` event: the child and the parent's tool call it answers. */
export type SubagentSpawned = ExtensionEventDataMap[typeof SUBAGENT_SPAWNED]

/**
 * The update on the parent's delegate call that says which subagent runs it (live and in a
 * replay): `in_progress`, the child's title, its session id in `_meta.dsh.subagent`.
 */
export function subagentProgressUpdate(
  spawned: Omit<SubagentSpawned, 'turn'>,
  text?: string,
): AcpSessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: spawned.callId,
    status: 'in_progress',
    title: `Subagent: ${spawned.title}`,
    content: [
      {
        type: 'content',
        content: { type: 'text', text: text ?? `Subagent ${spawned.sessionId} started: ${spawned.task}` },
      },
    ],
    _meta: { dsh: { subagent: { sessionId: spawned.sessionId } } },
  }
}

/** The event the `update_plan` tool appends: the model's whole plan (a plugin event). */
export const PLAN_UPDATED = 'plan:updated' satisfies keyof ExtensionEventDataMap

/**
 * The stable ACP `plan` update for a plan (the whole list; empty: the plan is cleared). The protocol
 * layer sends it as the unstable `plan_update` / `plan_removed` to a client that advertised `plan`.
 */
export function planUpdate(entries: ExtensionEventDataMap[typeof PLAN_UPDATED]['entries']): AcpSessionUpdate {
  return { sessionUpdate: 'plan', entries: entries.map((entry) => ({ ...entry })) }
}

/**
 * Tracks what a stream of events has opened, so each event maps to the updates a client would
 * have seen live. Feed events in log order; `updatesFor` is pure given the events fed before.
 */
export class UpdateProjector {
  private readonly openCalls = new Set<string>()
  private readonly config: Record<string, ConfigValue> = Object.create(null)
  private title: string | undefined
  private sawUserMessage = false
  /** The rewind generation of the events fed so far (see `messageIdOf`). */
  private generation = 0

  constructor(
    readonly sessionId: SessionId,
    private readonly options: ProjectionOptions = {},
  ) {
    this.title = options.headerTitle
  }

  /** The `session/update` params that `event` stands for (often none). */
  updatesFor(event: SessionEvent): SessionUpdateNotification[] {
    const updates = this.variantsFor(event)
    return updates.map((update) => ({
      sessionId: this.sessionId,
      update,
      _meta: { dsh: { seq: event.seq } },
    }))
  }

  private variantsFor(event: SessionEvent): SessionUpdate[] {
    if (isExtensionEvent(event)) return this.extensionVariants(event)
    switch (event.type) {
      case 'user/message': {
        const messageId = messageIdOf(event.seq, this.generation)
        const { content } = event.data
        const out: SessionUpdate[] =
          content.length > 0 ? [userMessage(messageId, content, event.data.steered === true)] : []
        const first = !this.sawUserMessage
        this.sawUserMessage = true
        if (first && this.title === undefined) {
          const title = titleFromContent(event.data.content)
          if (title !== undefined) {
            this.title = title
            out.push(titleUpdate(title, event.time))
          }
        }
        return out
      }
      case 'assistant/message': {
        const out: SessionUpdate[] = []
        const messageId = messageIdOf(event.seq, this.generation)
        if (event.data.thought) out.push(agentText('agent_thought', messageId, event.data.thought))
        if (event.data.content) out.push(agentText('agent_message', messageId, event.data.content))
        return out
      }
      case 'tool/call':
        this.openCalls.add(event.data.callId)
        return [toolCallUpdate(event.data)]
      case 'tool/result':
        this.openCalls.delete(event.data.callId)
        return [
          toolResultUpdate(
            event.data.callId,
            event.data.output,
            event.data.isError === true,
            replayContent(event.data.content, event.data.output),
          ),
        ]
      case 'turn/start':
        this.openCalls.clear()
        return []
      case 'turn/end': {
        if (CLEAN_TURN_END_REASONS.has(event.data.reason)) return []
        const text = unansweredCallResult(event.data.reason)
        const out = [...this.openCalls].map((callId) => toolResultUpdate(callId, text, true))
        this.openCalls.clear()
        return out
      }
      case 'session/title':
        this.title = event.data.title
        return [titleUpdate(event.data.title, event.time)]
      case 'config/set':
        this.config[event.data.option] = event.data.value
        return this.options.configUpdates?.({ ...this.config }, event.data.option) ?? []
      case 'context/compaction':
        return [compactionReplayed(event.data)]
      case 'step/start':
      case 'step/end':
      case 'context/note':
      case 'session/directories':
      case 'session/archived':
        return []
      default:
        return assertNever(event, 'event')
    }
  }

  /** Of the extension events, a plan and a goal show, and a registered `subagent:spawned` on an open call. */
  private extensionVariants(event: ExtensionEvent): SessionUpdate[] {
    const marker = extensionData(event, 'rewind:marker')
    if (marker !== undefined) {
      this.generation = marker.generation
      return []
    }
    const plan = extensionData(event, PLAN_UPDATED)
    if (plan !== undefined) return [planUpdate(plan.entries)]
    const goal = goalOfEvent(event)
    if (goal !== undefined) return [goalInfoUpdate(goal)]
    const spawned = extensionData(event, SUBAGENT_SPAWNED)
    return spawned !== undefined && this.openCalls.has(spawned.callId)
      ? [subagentProgressUpdate(spawned)]
      : []
  }
}

/**
 * The `session/update` notifications that replay a log (pure): what `session/load` sends before it
 * answers. Each carries `_meta.dsh.seq`, the seq of the event it came from.
 */
export function projectUpdates(
  sessionId: SessionId,
  events: readonly SessionEvent[],
  options: ProjectionOptions = {},
): SessionUpdateNotification[] {
  const projector = new UpdateProjector(sessionId, options)
  return events.flatMap((event) => projector.updatesFor(event))
}
