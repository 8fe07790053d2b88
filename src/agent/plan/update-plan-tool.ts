import { PLAN_UPDATED, type PlanEntryData, planUpdate, type SessionStore } from '../../session/index.js'
import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import { defineTool } from '../tools/define-tool.js'
import type { Tool } from '../tools/tool.js'

/** The name the model calls the plan tool by. */
export const UPDATE_PLAN_TOOL = 'update_plan'

/** Most entries a plan may hold, and the longest entry, in characters. */
export const MAX_PLAN_ENTRIES = 100
export const MAX_PLAN_ENTRY_LENGTH = 2000

const STATUS_WORDS: Readonly<Record<PlanEntryData['status'], string>> = {
  completed: 'completed',
  in_progress: 'in progress',
  pending: 'pending',
}

/** What the model reads back: how many entries, by status (or that the plan is cleared). */
export function planSummary(entries: readonly PlanEntryData[]): string {
  if (entries.length === 0) return 'Plan cleared.'
  const counts = (['completed', 'in_progress', 'pending'] as const)
    .map((status) => [status, entries.filter((e) => e.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${STATUS_WORDS[status]}`)
  return `Plan updated: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} (${counts.join(', ')}).`
}

/**
 * `update_plan {entries: [{content, status, priority?}]}`: the model keeps its task list. Each call
 * gives the whole list (an empty one clears the plan); it is recorded as a `plan:updated` event of
 * the calling session (a subagent's in the child's own log) and streamed as a `plan` update. It
 * changes nothing outside the session, so it never asks and is offered in every mode.
 */
export function updatePlanTool(sessions: () => SessionStore): Tool {
  return defineTool({
    spec: {
      name: UPDATE_PLAN_TOOL,
      description:
        "Keep your plan for multi-step work: the whole list of steps each time, with each step's status. Mark a step in_progress when you start it and completed as soon as it is done. An empty list clears the plan. The user sees the plan as you keep it.",
      inputSchema: {
        type: 'object',
        properties: {
          entries: {
            type: 'array',
            maxItems: MAX_PLAN_ENTRIES,
            description: 'The whole plan, in order.',
            items: {
              type: 'object',
              properties: {
                content: {
                  type: 'string',
                  minLength: 1,
                  maxLength: MAX_PLAN_ENTRY_LENGTH,
                  description: 'What the step does, in a few words.',
                },
                status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
                priority: {
                  type: 'string',
                  enum: ['high', 'medium', 'low'],
                  description: 'Default medium.',
                },
              },
              required: ['content', 'status'],
              additionalProperties: false,
            },
          },
        },
        required: ['entries'],
        additionalProperties: false,
      },
    },
    kind: 'think',
    effect: 'read',
    title: () => 'Update plan',
    async run(input, context) {
      const entries: PlanEntryData[] = input.entries.map((entry) => ({
        content: entry.content,
        status: entry.status,
        priority: entry.priority ?? 'medium',
      }))
      const session = sessions().require(context.sessionId)
      const event = session.append({ type: PLAN_UPDATED, data: { entries } })
      context.sendUpdate?.(planUpdate(entries), event.seq)
      return { output: planSummary(entries) }
    },
  })
}

/** The model's plan: the `update_plan` tool. */
export function planFeature(host: FeatureHost): AgentFeature {
  return { tools: [updatePlanTool(host.sessions)] }
}
