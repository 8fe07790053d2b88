import type { WireId } from '../../jsonrpc/index.js'
import type { Session } from '../../session/index.js'
import { replayedTurnEnd } from '../views/replay/replay-turn-ends.js'

/**
 * Where a session's turn stands, for a client that (re)attaches to it: running or waiting with
 * the seq of its `turn/start` and the JSON-RPC id of the `session/prompt` whose turn it is (on the
 * wire of the client that sent it), or idle and how the last turn ended.
 */
export type TurnState =
  | { readonly state: 'running' | 'waiting'; readonly turnSeq?: number; readonly promptRequestId?: WireId }
  | { readonly state: 'idle'; readonly stopReason?: string; readonly turnEndSeq?: number }

/** The `_meta` key of a `session/load` or `session/resume` answer that says where the turn stands. */
const TURN_STATE_META = 'acp/turnState'

/**
 * The turn of `session` as this process runs it (`running`: a turn of it runs here): `waiting` while it waits on a question (a
 * permission request any attached client may answer), `running` while it runs otherwise (both
 * with `turnSeq`, the seq of its `turn/start`), else `idle` with how the last turn ended
 * (`stopReason` as `session/prompt` answered it; absent after a failed turn or before any).
 */
export function turnStateOf(session: Session, running: boolean, waiting: boolean): TurnState {
  const spans = session.turnSpans()
  const last = spans.at(-1)
  if (running) {
    const promptRequestId = turnPrompts.get(session)
    return {
      state: waiting ? 'waiting' : 'running',
      ...(last && last.end === undefined && { turnSeq: last.start }),
      ...(promptRequestId !== undefined && { promptRequestId }),
    }
  }
  const end = last?.end === undefined ? undefined : session.at(last.end)
  if (end?.type !== 'turn/end') return { state: 'idle' }
  const turnEnd = replayedTurnEnd(end)
  return {
    state: 'idle',
    turnEndSeq: end.seq,
    ...(turnEnd.stopReason !== undefined && { stopReason: turnEnd.stopReason }),
  }
}

/** The request id of the `session/prompt` whose turn runs, per live session of this process. */
const turnPrompts = new WeakMap<Session, WireId>()

/** Notes that `session`'s turn, starting now, is the one of prompt request `id`; returns the note's removal. */
export function noteTurnPrompt(session: Session, id: WireId): () => void {
  turnPrompts.set(session, id)
  return () => {
    if (turnPrompts.get(session) === id) turnPrompts.delete(session)
  }
}

/** `answer` with its `_meta[TURN_STATE_META]`. */
export function withTurnState<T extends object>(
  answer: T,
  state: TurnState,
): T & { _meta: { [key: string]: unknown } } {
  const meta =
    '_meta' in answer && typeof answer._meta === 'object' && answer._meta !== null ? answer._meta : {}
  return { ...answer, _meta: { ...meta, [TURN_STATE_META]: state } }
}
