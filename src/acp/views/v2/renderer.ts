import type { SessionUpdate, SessionUpdateNotification } from '../../../session/index.js'
import { messageIdOf } from '../../../session/log/message-ids/message-id-format.js'
import { configOptionsV2 } from '../../v2/config-options-v2.js'
import type { UpdateRenderer, V2Update } from '../renderer.js'
import { PLAN_ID } from '../v1/renderer.js'
import { displayTerminal } from './display-terminal.js'
import { toolCallV2 } from './tool-content.js'

/**
 * ACP v2 (the draft): every canonical update in v2's words, whatever the client advertised.
 *
 * - chunks carry a `messageId` (the canonical one; else the id of the event they came from);
 * - a tool call is only ever `tool_call_update` (the first creates it), its diffs v2 `diff`s;
 * - `plan` is `plan_update` (type `items`, id {@link PLAN_ID}; an empty list clears it);
 * - config options use `configId`; modes are one of them, so `current_mode_update` is not sent;
 * - commands' inputs are `{ type: "text", hint }`;
 * - `notice` and usage as they are (v2 has them), a notice without its fallback; compaction with
 *   v2's content blocks (`compaction_update.summary` a list of blocks, a summary chunk's `content`);
 * - a whole message (a replayed or steered one) is v2's upsert of it: `user_message`,
 *   `agent_message`, `agent_thought` with its whole `content` (replacing what the client holds);
 *   text a model streams comes as chunks;
 * - `subagent_update` as it is (the unstable v2 schema's; every v2 client registers children), and
 *   a state it reports is also the child session's own `state_update`, after the announcement;
 * - a command the agent runs itself is a display terminal ({@link displayTerminal});
 * - another client's turn starting and ending (`turn_state`) is `state_update` `running`, then
 *   `idle` with its stop reason.
 */
export const acpV2Renderer: UpdateRenderer<SessionUpdateNotification<V2Update>> = {
  render(notification: SessionUpdateNotification): SessionUpdateNotification<V2Update>[] {
    if (notification.update.sessionUpdate === 'command_output')
      return displayTerminal(notification.update).map((update) => ({ ...notification, update }))
    const update = updateV2(notification.update, notification._meta?.dsh?.seq)
    if (update === undefined) return []
    const rendered = [{ ...notification, update }]
    const child = notification.update
    if (child.sessionUpdate === 'subagent_update' && child.state != null)
      rendered.push({ sessionId: child.sessionId, update: { sessionUpdate: 'state_update', ...child.state } })
    return rendered
  },
}

function updateV2(update: SessionUpdate, seq: number | undefined): V2Update | undefined {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const messageId = update.messageId ?? (seq === undefined ? undefined : messageIdOf(seq))
      if (messageId === undefined) return undefined
      return { sessionUpdate: update.sessionUpdate, messageId, content: update.content }
    }
    case 'tool_call':
    case 'tool_call_update': {
      const { sessionUpdate: _kind, ...call } = update
      return { sessionUpdate: 'tool_call_update', ...toolCallV2(call) }
    }
    case 'plan':
      return {
        sessionUpdate: 'plan_update',
        plan: { type: 'items', planId: PLAN_ID, entries: update.entries },
      }
    case 'available_commands_update':
      return {
        sessionUpdate: 'available_commands_update',
        availableCommands: update.availableCommands.map(({ input, ...command }) => ({
          type: 'command' as const,
          ...command,
          ...(input && 'hint' in input && { input: { type: 'text' as const, hint: input.hint } }),
        })),
      }
    case 'config_option_update':
      return { sessionUpdate: 'config_option_update', configOptions: configOptionsV2(update.configOptions) }
    case 'notice': {
      const { fallback: _fallback, ...notice } = update
      return notice
    }
    case 'compaction_update': {
      const { summary, ...rest } = update as typeof update & { summary?: unknown }
      if (typeof summary !== 'string') return update
      return { ...rest, summary: [{ type: 'text', text: summary }] } as V2Update
    }
    case 'compaction_summary_chunk': {
      const { text, ...rest } = update as typeof update & { text?: unknown }
      if (typeof text !== 'string') return update
      return { ...rest, content: { type: 'text', text } } as V2Update
    }
    case 'user_message':
    case 'agent_message':
    case 'agent_thought':
      return { ...update, content: [...update.content] }
    case 'session_info_update':
    case 'usage_update':
    case 'subagent_update':
      return update
    case 'turn_state':
      return {
        sessionUpdate: 'state_update',
        state: update.state,
        ...(update.stopReason !== undefined && { stopReason: update.stopReason }),
      }
    default:
      return undefined
  }
}
