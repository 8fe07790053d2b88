import type { Session, SessionUpdateNotification, UpdateProjector } from '../../session/index.js'
import type { ClientRequestSender } from '../client/client-bridge.js'
import type { ReplayTurnEnds } from '../views/replay/replay-turn-ends.js'

/** Where an attached connection's updates of one session go: the replay's projection and output. */
export interface Seat {
  readonly projector: UpdateProjector
  readonly turnEnds: ReplayTurnEnds
  /** Sends one canonical update as the connection's view renders it. */
  readonly notify: (update: SessionUpdateNotification) => Promise<void>
  /**
   * Re-syncs the connection on `session` read again after another process replaced its log: sends
   * what it must be told and shown (see `resyncSeat`) and returns its new projection and output.
   */
  readonly resync?: (session: Session, keptSeq: number) => Pick<Seat, 'projector' | 'turnEnds' | 'notify'>
  /** Runs `task` once the answer of the call that attached it is written. */
  readonly afterResponse?: (task: () => void) => void
  /** Asks the connection a question (aborting sends `$/cancel_request`); none: it is never asked. */
  readonly ask?: ClientRequestSender
  /** Its `clientInfo.name`. */
  readonly name?: string
  /** Whether it can answer a question of `method` (an elicitation: only in a mode it advertised). */
  readonly canAnswer?: (method: string, params: unknown) => boolean
  /** Sends it a notification that is not a session update (`elicitation/complete`). */
  readonly tell?: (method: string, params: unknown) => void
}
