import type { ClientState } from '../client-state.js'
import { servesGoals } from '../goals/goal-gate.js'

/**
 * What a client advertised at `initialize` that changes what it is shown: the one reading of its
 * capabilities for its view. Each is an object capability (`{}`; omitted, null or anything else:
 * not advertised). Unstable ones (`plan`, `subagents`) are not in the stable type of the boundary.
 */
export interface ClientFeatures {
  /** `session.notices`: `notice` updates (else the agent's fallback message, or nothing). */
  readonly notices: boolean
  /** `session.compaction`: `compaction_update`s (else a `think` tool call). */
  readonly compaction: boolean
  /** Unstable `plan`: `plan_update` / `plan_removed` (else the stable `plan`). */
  readonly plan: boolean
  /**
   * Unstable `subagents` (every ACP v2 client): `subagent_update`s and the child's own updates
   * (else nothing of them).
   */
  readonly subagents: boolean
  /** `session.workspaceTrust` (or `_meta.workspaceTrust`): it reads the answers' `workspaceTrust` and asks its user (else a notice and `/trust`). */
  readonly workspaceTrust: boolean
  /** Offered the goal extension at `initialize` (`_meta.goal`, every answer): goal updates. */
  readonly goals: boolean
}

/** The features of a client that advertised nothing (or has not said `initialize` yet). */
export const NO_FEATURES: ClientFeatures = {
  notices: false,
  compaction: false,
  plan: false,
  subagents: false,
  workspaceTrust: false,
  goals: false,
}

/** What `client`'s `initialize` advertised of the {@link ClientFeatures}. */
export function clientFeatures(client: ClientState | undefined): ClientFeatures {
  if (client === undefined) return NO_FEATURES
  // Unstable: not in the stable ClientCapabilities type that types the boundary.
  const unstable = client.capabilities as { readonly plan?: unknown; readonly subagents?: unknown }
  const session = client.capabilities.session as { readonly workspaceTrust?: unknown } | undefined
  return {
    notices: advertised(client.capabilities.session?.notices),
    compaction: advertised(client.capabilities.session?.compaction),
    plan: advertised(unstable.plan),
    // Every v2 client registers children (v2: baseline, no capability); a v1 client asks for them.
    subagents: client.protocolVersion === 2 || advertised(unstable.subagents),
    workspaceTrust:
      advertised(session?.workspaceTrust) || advertised(client.capabilities._meta?.workspaceTrust),
    goals: servesGoals(client),
  }
}

/** True for an advertised object capability (`{}`, possibly with `_meta`). */
function advertised(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
