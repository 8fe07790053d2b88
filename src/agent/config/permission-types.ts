import type { PermissionOptionKind } from '@agentclientprotocol/sdk'

// The permission policy's vocabulary (its rules are permissions.ts): a leaf, so that the agent's
// shared types (types.ts) can name it without importing the policy, which imports the tools.

/**
 * The session modes the permission policy knows: `ask` asks before every change and command,
 * `accept-edits` makes file edits without asking (commands still ask), `read-only` offers only the
 * tools that change nothing.
 */
export type SessionMode = 'ask' | 'accept-edits' | 'read-only'

/**
 * A running turn's permissions as they are now, read anew at every decision (the user may switch
 * the mode, or answer "always", while the turn runs). A subagent's are never looser than its
 * parent's: see `cappedPermissions` (permissions.ts).
 */
export interface LivePermissions {
  mode(): SessionMode
  /** The standing "always" answers (scope -> allowed). */
  standing(): ReadonlyMap<string, boolean>
}

/** ACP `PermissionOptionKind`, or `cancelled` when the prompt turn was cancelled while asking. */
export type PermissionAnswer = PermissionOptionKind | 'cancelled'
