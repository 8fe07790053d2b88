import type { Session, TurnEndReason } from '../../session/index.js'
import type { FileCheckpoints } from '../checkpoints/recorder.js'
import type { LivePermissions } from '../config/permissions.js'
import type { UpdateSender } from '../notices/notice.js'
import type { ModelProvider, TurnRequest } from '../types.js'
import type { SteerInbox } from './steer-inbox.js'

/**
 * What every collaborator of one running turn shares (its tool calls, its compaction, its
 * commands), handed to each as this one object.
 */
export interface TurnScope {
  readonly session: Session
  /** The turn's number (its `turn/start`'s). */
  readonly turn: number
  /** The protocol layer's request: the prompt, the client's bridge, a subagent's bounds. */
  readonly request: TurnRequest
  /** The turn's signal: aborting it cancels everything the turn does. */
  readonly signal: AbortSignal
  readonly provider: ModelProvider
  /** Sends one canonical update of the session, tagged with the seq of its event; never throws. */
  readonly send: UpdateSender
  /** Where the file tools record their changes (absent: nowhere). */
  readonly checkpoints?: FileCheckpoints
}

/** A turn the agent runs: how to cancel it, its end, and the permissions it reads. */
export interface RunningTurn {
  readonly controller: AbortController
  readonly done: Promise<unknown>
  readonly permissions: LivePermissions
  /** Where the user's steers wait for the turn's next safe point (absent: a subagent's turn). */
  readonly steers?: SteerInbox
}

/** How the body of a turn ended: the `turn/end` reason still to be written. */
export interface TurnEnding {
  readonly reason: TurnEndReason
  readonly message?: string
}
