import type { Session, TurnEndReason } from '../../session/index.js'
import type { FileCheckpoints } from '../checkpoints/recorder.js'
import type { LivePermissions } from '../config/permissions.js'
import type { UpdateSender } from '../notices/notice.js'
import type { ModelProvider, TurnRequest } from '../types.js'

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
}

/** What the features do at the points of one turn (see `AgentFeature.turn`). */
export interface TurnHooks {
  /**
   * Before each model request, with the turn's update channel and signal, while the log may take
   * standalone events. Awaited only when it returns a promise.
   */
  readonly beforeStep?: (send: UpdateSender, signal: AbortSignal) => void | Promise<void>
  /** At each safe point between two steps (after a step's tool results): may append to the turn. */
  readonly betweenSteps?: (scope: TurnScope) => void
  /** True when a step that would end the turn `completed` is to be followed by one more. */
  readonly wantsStep?: () => boolean
  /** Synchronously after the last step's decision: the turn takes nothing more. */
  readonly close?: () => void
  /** The turn is over (ended, or failed), before its pen is released. */
  readonly settled?: () => void
}

/** How the body of a turn ended: the `turn/end` reason still to be written. */
export interface TurnEnding {
  readonly reason: TurnEndReason
  readonly message?: string
}
