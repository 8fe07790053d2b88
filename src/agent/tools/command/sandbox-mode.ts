/**
 * How `run_command` confines local commands: `auto` uses bubblewrap where it works here and
 * otherwise runs them unconfined (said at start and in every result); `bwrap` requires it (a command
 * fails without it); `off` runs them unconfined. (No imports: the command line reads it at start.)
 */
export const SANDBOX_MODES = ['auto', 'bwrap', 'off'] as const

export type SandboxMode = (typeof SANDBOX_MODES)[number]
