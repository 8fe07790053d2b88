import type { SessionUpdateNotification } from '../../session/index.js'

/** What of the client's `initialize` decides the plan's shape (a `ClientState`). */
type Client = { readonly capabilities: object } | undefined

/**
 * The id of a session's plan in `plan_update` / `plan_removed`: a session keeps one plan (the
 * model's `update_plan` list), so its id is the same in every update, live and replayed.
 */
export const PLAN_ID = 'plan'

/** True when the client advertised the unstable `plan` capability (`{}`; omitted or null: not). */
export function supportsPlanUpdates(client: Client): boolean {
  // Unstable: not in the stable ClientCapabilities type that types the boundary.
  const value = (client?.capabilities as { readonly plan?: unknown } | undefined)?.plan
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A notification as this client is to get it: a stable `plan` becomes the unstable `plan_update`
 * (of type `items`, id {@link PLAN_ID}) for a client with the `plan` capability, or `plan_removed`
 * when the plan was cleared (no entries); everything else (and every update to other clients) is
 * sent as it is.
 */
export function planForClient(
  notification: SessionUpdateNotification,
  client: Client,
): SessionUpdateNotification {
  const { update } = notification
  if (update.sessionUpdate !== 'plan' || !supportsPlanUpdates(client)) return notification
  const adapted =
    update.entries.length === 0
      ? { sessionUpdate: 'plan_removed' as const, planId: PLAN_ID }
      : {
          sessionUpdate: 'plan_update' as const,
          plan: { type: 'items' as const, planId: PLAN_ID, entries: update.entries },
        }
  return { ...notification, update: adapted }
}
