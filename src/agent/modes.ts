import type { ToolKind } from './tools/tool.js'

/** A session mode: how much the agent may do without asking (ACP `SessionMode`). */
export interface ModeSpec {
  readonly id: SessionModeId
  readonly name: string
  readonly description: string
}

export type SessionModeId = 'ask' | 'accept-edits' | 'read-only'

/** The modes every session offers; the first is the default. */
export const SESSION_MODES: readonly ModeSpec[] = [
  { id: 'ask', name: 'Ask', description: 'Ask before every file change or command' },
  {
    id: 'accept-edits',
    name: 'Accept edits',
    description: 'Edit files without asking; commands still ask',
  },
  {
    id: 'read-only',
    name: 'Read only',
    description: 'Only tools that change nothing are offered to the model',
  },
]

export const DEFAULT_MODE: SessionModeId = 'ask'

/** Tool kinds that change nothing (ACP `ToolKind`); every other kind may change something. */
const READ_ONLY_KINDS: ReadonlySet<ToolKind> = new Set(['read', 'search', 'think'])
/** Tool kinds that edit files: what `accept-edits` lets through without asking. */
const EDIT_KINDS: ReadonlySet<ToolKind> = new Set(['edit', 'delete', 'move'])

/** What a mode lets a tool call do: run at once, ask the user first, or not run at all. */
export type ModeDecision = 'allow' | 'ask' | 'deny'

/**
 * The mode's rule for a tool of `kind`: tools that change nothing always run; in `read-only` the
 * rest is denied (and not offered to the model); in `accept-edits` file edits run without asking
 * and everything else asks; in `ask` every change asks. An unknown mode is treated as `ask`.
 */
export function modeDecision(mode: string, kind: ToolKind): ModeDecision {
  if (READ_ONLY_KINDS.has(kind)) return 'allow'
  if (mode === 'read-only') return 'deny'
  if (mode === 'accept-edits' && EDIT_KINDS.has(kind)) return 'allow'
  return 'ask'
}
