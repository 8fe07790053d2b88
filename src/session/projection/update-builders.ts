import type { ToolCallContent, ToolKind } from '@agentclientprotocol/sdk'
import type { EventDataMap, ExtensionEventDataMap, JsonValue } from '../log/events.js'
import { messageIdOf } from '../log/message-ids/message-ids.js'
import type { AcpSessionUpdate } from './update-types.js'

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
