import type { EventDataMap } from '../log/events.js'

/**
 * A compaction as the agent and the session emit it (the canonical form): `in_progress`, the
 * summary's chunks, then `completed` (with the summary and the token counts a client that cannot
 * show compactions is told instead), `failed` or `cancelled`. A replay emits one `completed` with
 * `replayed` (a finished compaction of the history: nothing opened it). How a client sees it is
 * its view's choice (acp/views/).
 */
export type CompactionUpdate =
  | {
      readonly sessionUpdate: 'compaction_update'
      readonly compactionId: string
      readonly status: 'in_progress'
    }
  | {
      readonly sessionUpdate: 'compaction_update'
      readonly compactionId: string
      readonly status: 'completed'
      readonly summary: string
      readonly tokensBefore: number
      readonly tokensAfter: number
      /** From a replay: no `in_progress` came before it. */
      readonly replayed?: true
    }
  | {
      readonly sessionUpdate: 'compaction_update'
      readonly compactionId: string
      readonly status: 'failed' | 'cancelled'
      readonly error: string
    }
  | {
      readonly sessionUpdate: 'compaction_summary_chunk'
      readonly compactionId: string
      readonly text: string
    }

/** How a live compaction ended. */
export type CompactionEnd =
  | {
      readonly status: 'completed'
      readonly summary: string
      readonly tokensBefore: number
      readonly tokensAfter: number
    }
  | { readonly status: 'failed' | 'cancelled'; readonly error: string }

/** The update that opens a compaction. */
export function compactionStarted(compactionId: string): CompactionUpdate {
  return { sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' }
}

/** The update for a piece of the streaming summary (none for an empty piece). */
export function compactionChunk(compactionId: string, text: string): CompactionUpdate[] {
  return text === '' ? [] : [{ sessionUpdate: 'compaction_summary_chunk', compactionId, text }]
}

/** The update that ends a compaction, how it ended. */
export function compactionEnded(compactionId: string, end: CompactionEnd): CompactionUpdate {
  return { sessionUpdate: 'compaction_update', compactionId, ...end }
}

/** What a replay shows for a recorded (so completed) compaction. */
export function compactionReplayed(data: EventDataMap['context/compaction']): CompactionUpdate {
  return {
    sessionUpdate: 'compaction_update',
    compactionId: data.compactionId,
    status: 'completed',
    summary: data.summary,
    tokensBefore: data.tokensBefore,
    tokensAfter: data.tokensAfter,
    replayed: true,
  }
}
