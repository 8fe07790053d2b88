import type { Logger } from 'cordis'
import { errorMessage } from '../../lib/error-message.js'
import type { Cost, Session, TurnEndReason } from '../../session/index.js'
import { lastTurnUsage, ownCost } from '../../session/usage.js'
import type { TurnOutcome } from '../types.js'
import type { TurnRun } from './turn-run.js'
import type { TurnEnding } from './turn-scope.js'

/**
 * Runs `run`'s body and ends the turn: appends its `turn/end` (with the session's own cost so far)
 * and resolves, once `flush` made it durable, with how the prompt is answered. A body that throws
 * while its turn is open ends it `error` ("internal error: ..."); anything else it throws (the log
 * refused an append) is rethrown.
 */
export async function finishTurn(
  session: Session,
  run: TurnRun,
  flush: () => Promise<void>,
  logger: Logger,
): Promise<TurnOutcome> {
  let ending: TurnEnding
  try {
    ending = await run.run()
  } catch (error) {
    if (session.openTurn !== run.turn) throw error
    logger.error('turn %d of %s failed: %s', run.turn, session.id, errorMessage(error))
    ending = { reason: 'error', message: `internal error: ${errorMessage(error)}` }
    try {
      session.append(turnEnd(run.turn, ending, ownCost(session)))
    } catch {
      throw error
    }
    await flush()
    return withUsage(turnOutcome(session.lastSeq, ending), session)
  }
  const end = session.append(turnEnd(run.turn, ending, ownCost(session)))
  await flush()
  return withUsage(turnOutcome(end.seq, ending), session)
}

/** The `turn/end` event; `cost`: the session's own cost so far (what a listing reads). */
function turnEnd(turn: number, ending: TurnEnding, cost: Cost | undefined) {
  return {
    type: 'turn/end' as const,
    data: {
      turn,
      reason: ending.reason,
      ...(ending.message !== undefined && { message: ending.message }),
      ...(cost !== undefined && { cost }),
    },
  }
}

/** `outcome` with the usage the turn that just ended reported, if any. */
function withUsage(outcome: TurnOutcome, session: Session): TurnOutcome {
  const usage = lastTurnUsage(session)
  return usage === undefined ? outcome : { ...outcome, usage }
}

const STOP_REASONS: Readonly<Record<string, TurnOutcome['stopReason']>> = {
  completed: 'end_turn',
  'max-tokens': 'max_tokens',
  'max-turn-requests': 'max_turn_requests',
  refusal: 'refusal',
  cancelled: 'cancelled',
}

/** How a turn whose `turn/end` (at `seq`) records `ending` is answered: its stop reason, or the error. */
export function turnOutcome(seq: number, ending: TurnEnding): TurnOutcome {
  const reason: TurnEndReason = ending.reason
  const stopReason = STOP_REASONS[reason] ?? 'end_turn'
  if (reason === 'error')
    return { stopReason, seq, endReason: reason, error: ending.message ?? 'the turn failed' }
  return { stopReason, seq, endReason: reason }
}
