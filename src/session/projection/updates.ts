import { assertNever } from '../../lib/assert-never.js'
import type { ConfigValue } from '../config.js'
import type { SessionId } from '../ids.js'
import {
  CLEAN_TURN_END_REASONS,
  type ExtensionEvent,
  extensionData,
  isExtensionEvent,
  type SessionEvent,
} from '../log/events.js'
import { messageIdOf } from '../log/message-ids/message-id-format.js'
import { titleFromContent } from '../title.js'
import { compactionReplayed } from './compaction-updates.js'
import { goalInfoUpdate, goalOfEvent } from './goal-updates.js'
import { unansweredCallResult } from './history.js'
import {
  PLAN_UPDATED,
  planUpdate,
  replayContent,
  SUBAGENT_SPAWNED,
  subagentProgressUpdate,
  titleUpdate,
  toolCallUpdate,
  toolResultUpdate,
} from './update-builders.js'

import type { ProjectionOptions, SessionUpdate, SessionUpdateNotification } from './update-types.js'
import { agentText, userMessage } from './whole-messages.js'
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
