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
