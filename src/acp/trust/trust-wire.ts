/**
 * Workspace trust as the ACP `workspace-trust` RFD (draft) puts it on the wire: no SDK schema has
 * it yet, so its shapes are declared here (docs/workspace-trust.md).
 */

/** A decision a user can take about a workspace (`trust/apply`'s `decision`). */
export const TRUST_DECISIONS = ['trust_repo', 'trust_cwd', 'trust_session', 'decline'] as const
export type TrustDecision = (typeof TRUST_DECISIONS)[number]

/** `workspaceTrust` of a `session/new`, `load`, `resume` or `fork` answer, and of `trust/apply`'s. */
export interface WorkspaceTrustReport {
  readonly status: 'trusted' | 'session' | 'untrusted'
  readonly details: {
    /** The working directory, as a real absolute path. */
    readonly cwd: string
    /** Its repository's root (real path), when it is in one. */
    readonly repoRoot?: string
    /** The project files (absolute) that are not used because the workspace is not trusted. */
    readonly ignoredPaths: readonly string[]
    readonly availableDecisions: readonly TrustDecision[]
  }
}

/**
 * The workspace trust of the process's set-up: what a session's folder is trusted for, and the
 * user's decisions about it. The set-up uses it to decide which project files it offers.
 */
export interface WorkspaceTrust {
  /**
   * The report for a session of `sessionId` (absent: a session not made yet) in `cwd`; undefined
   * when the workspace has no project file and no decision: nothing there waits for trust.
   */
  report(cwd: string, sessionId?: string): WorkspaceTrustReport | undefined
  /**
   * Takes `decision` for the workspace of `cwd` (`trust_session` for `sessionId` only) and answers
   * the report after it. Throws a `TrustRefusal` when the decision is not available there.
   */
  apply(cwd: string, decision: TrustDecision, sessionId?: string): WorkspaceTrustReport
}

/** A decision that cannot be taken (not available for the workspace, or missing its session). */
export class TrustRefusal extends Error {}
