import type { SessionUpdate as AcpWireUpdate } from '@agentclientprotocol/sdk'
import { type ExtensionEventDataMap, extensionData, type SessionEvent } from '../log/events.js'

/** The event a goal's new state is recorded as (`_session/goal`, the `goal_status` tool, a goal turn's end). */
export const GOAL_UPDATED = 'goal:updated' satisfies keyof ExtensionEventDataMap
/** The event a cleared goal is recorded as. */
export const GOAL_CLEARED = 'goal:cleared' satisfies keyof ExtensionEventDataMap

/** A goal as a `goal:updated` event records it, with `createdAt` known (see {@link goalOfEvent}). */
export type GoalData = ExtensionEventDataMap[typeof GOAL_UPDATED] & { readonly createdAt: string }

/** The statuses dsh-acp writes (`status` is an open string in the log: another is read as paused). */
export const GOAL_STATUSES = ['active', 'paused', 'blocked', 'limited', 'complete'] as const
export type GoalStatus = (typeof GOAL_STATUSES)[number]

/** A goal as clients are shown it: `session_info_update._meta.goal` (the goal extension's shape). */
export interface GoalView {
  readonly objective: string
  readonly status: GoalStatus
  readonly iterations: number
  readonly lastReason: string | null
  readonly createdAt: string
}

/** The status of a recorded goal, read as one of {@link GOAL_STATUSES} (an unknown one: paused). */
export function goalStatusOf(data: GoalData): GoalStatus {
  return (GOAL_STATUSES as readonly string[]).includes(data.status) ? (data.status as GoalStatus) : 'paused'
}

/** The wire view of a recorded goal. */
export function goalView(data: GoalData): GoalView {
  return {
    objective: data.objective,
    status: goalStatusOf(data),
    iterations: data.iterations,
    lastReason: data.lastReason ?? null,
    createdAt: data.createdAt,
  }
}

/**
 * What `event` says the session's goal now is: its data (`goal:updated`; without `createdAt` the
 * event is the goal's set, and its time is when), null (`goal:cleared`), or undefined when the
 * event is no goal event.
 */
export function goalOfEvent(event: SessionEvent): GoalData | null | undefined {
  const updated = extensionData(event, GOAL_UPDATED)
  if (updated !== undefined) return { ...updated, createdAt: updated.createdAt ?? event.time }
  return extensionData(event, GOAL_CLEARED) !== undefined ? null : undefined
}

/** The `session_info_update` that shows a goal (`_meta.goal`; null: cleared). */
export function goalInfoUpdate(
  goal: GoalData | null,
): Extract<AcpWireUpdate, { sessionUpdate: 'session_info_update' }> {
  return {
    sessionUpdate: 'session_info_update',
    _meta: { goal: goal === null ? null : { ...goalView(goal) } },
  }
}

/** Whether `update` is a goal's `session_info_update` (what a client without the goal capability is not sent). */
export function isGoalUpdate(update: { readonly sessionUpdate: string; readonly _meta?: unknown }): boolean {
  if (update.sessionUpdate !== 'session_info_update') return false
  const meta = update._meta
  return typeof meta === 'object' && meta !== null && 'goal' in meta
}
