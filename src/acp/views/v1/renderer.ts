import type {
  SessionUpdate,
  SessionUpdateNotification,
  WholeMessageUpdate,
  WireNotification,
  WireUpdate,
} from '../../../session/index.js'
import { WHOLE_MESSAGE_CHUNKS } from '../../../session/projection/whole-messages.js'
import type { ClientFeatures } from '../client-features.js'
import type { UpdateRenderer } from '../renderer.js'
import { compactionOnWire } from './compaction.js'

/**
 * The id of a session's plan in `plan_update` / `plan_removed`: a session keeps one plan (the
 * model's `update_plan` list), so its id is the same in every update, live and replayed.
 */
export const PLAN_ID = 'plan'

/**
 * ACP v1: every canonical update as the client's {@link ClientFeatures} allow it.
 *
 * - `plan`: the unstable `plan_update` (of type `items`, id {@link PLAN_ID}), or `plan_removed` when
 *   the plan was cleared (no entries), for a client with `plan`; else the stable `plan`.
 * - compactions: see {@link compactionOnWire}.
 * - `notice`: as it is for a client with `session.notices`; else its fallback as an agent message,
 *   or nothing when it has none.
 * - `subagent_update`: only to a client with `subagents`.
 * - `command_output` (a display terminal's): nothing (v1 has no agent-owned terminals).
 * - a whole message (`user_message`, `agent_message`, `agent_thought`): one chunk per block, see
 *   {@link chunksOf}.
 *
 * Everything else goes out as it is.
 */
export const acpV1Renderer: UpdateRenderer<WireNotification> = {
  render(notification: SessionUpdateNotification, features: ClientFeatures): WireNotification[] {
    const { update } = notification
    const as = (updates: readonly WireUpdate[]) => updates.map((wire) => ({ ...notification, update: wire }))
    switch (update.sessionUpdate) {
      case 'plan':
        return as([features.plan ? planOnWire(update.entries) : update])
      case 'compaction_update':
      case 'compaction_summary_chunk':
        return as(compactionOnWire(update, features.compaction))
      case 'notice': {
        const { fallback, ...notice } = update
        if (features.notices) return as([notice])
        if (fallback === undefined) return []
        return as([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: fallback } }])
      }
      case 'subagent_update':
        return features.subagents ? as([update]) : []
      case 'command_output':
      case 'turn_state':
        return []
      case 'user_message':
      case 'agent_message':
      case 'agent_thought':
        return chunksOf(notification, update)
      default:
        return as([update])
    }
  },
}

type PlanEntries = Extract<SessionUpdate, { sessionUpdate: 'plan' }>['entries']

/** The unstable `plan_update` of a plan, or `plan_removed` when it was cleared (no entries). */
function planOnWire(entries: PlanEntries): WireUpdate {
  if (entries.length === 0) return { sessionUpdate: 'plan_removed', planId: PLAN_ID }
  return { sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries } }
}

/**
 * A whole message as ACP v1 shows it: one chunk per block, in order, each with the message's id
 * (and its `_meta`); a replayed turn's end (`_meta.dsh.turnEnd`) marks the last chunk only.
 */
function chunksOf(notification: SessionUpdateNotification, message: WholeMessageUpdate): WireNotification[] {
  const { sessionUpdate, messageId, content, _meta } = message
  const last = content.length - 1
  const seq = notification._meta?.dsh.seq
  return content.map((block, i) => {
    const update: WireUpdate = {
      sessionUpdate: WHOLE_MESSAGE_CHUNKS[sessionUpdate],
      content: block,
      messageId,
      ...(_meta && { _meta }),
    }
    if (i === last || seq === undefined) return { ...notification, update }
    return { ...notification, update, _meta: { dsh: { seq } } }
  })
}
