import type * as unstable from '@agentclientprotocol/sdk/unstable'
import type { LinePlace } from '../../agent/queue/prompt-queue.js'
import type { ContentBlock } from '../../agent/types.js'
import type { Session } from '../../session/index.js'
import { noteTurnPrompt } from '../attach/turn-state.js'
import type { CallContext } from '../call-context.js'
import { ErrorCode, ProtocolError } from '../errors.js'
import { keepToGoal, type RunTurn } from '../goals/goal-turns.js'
import { sendCaughtUp } from '../views/caught-up.js'
import { promptUsage } from '../views/usage.js'

/** What `_meta.dsh.queued` of a `session_info_update` says about a queued prompt. */
export interface QueuedState {
  readonly messageId: string
  readonly state: 'queued' | 'started' | 'cancelled'
  readonly position?: number
}

/**
 * Runs `prompt` on `session` as its own turn once `place` (its place in the session's line of
 * prompts) comes to the head and the session's pen is free, and answers as `session/prompt` does.
 * A queued prompt is shown (`session_info_update` with `_meta.dsh.queued`: queued with its
 * position, then started or cancelled); so is one that waits, at the head, for a turn another
 * process runs on the session (its pen; see `SessionStore.awaitPen`). Taken back
 * (`cancelQueuedMessage`, or `signal` aborting while it waits) it never runs and answers
 * `cancelled`. The place is released when the turn ends, so the next one runs. While the
 * session's goal is active, the agent's own turns toward it follow in the same place (see
 * `keepToGoal`), and the answer is the last one's. `hooks.onEnd` hears how it ended before the
 * place is released (before this process's next prompt on the session can start).
 */
export async function runInLine(
  call: CallContext,
  lined: LinedPrompt,
  hooks: PromptHooks = {},
): Promise<unstable.PromptResponse> {
  const { session, prompt, place, signal } = lined
  const { messageId } = place
  let forget: (() => void) | undefined
  let end: PromptEnd | undefined
  try {
    // While it waits, its client is shown the turns that run before it, as any attached client.
    const held = await call.whileWaiting(session.id, async () => {
      if (place.queued && (await waitInLine(call, session.id, place, signal)) === 'cancelled')
        return undefined
      return penInLine(call, session, place, signal)
    })
    if (held === undefined) return takenBack(call, session.id, messageId)
    try {
      if (place.queued || held.waited) void showQueued(call, session.id, { messageId, state: 'started' })
      const run: RunTurn = (turnPrompt, told) =>
        runPromptTurn(call, { session, prompt: turnPrompt, signal, onUserMessage: told })
      forget = call.requestId === undefined ? undefined : noteTurnPrompt(session, call.requestId)
      const answer = await keepToGoal(call, session, { prompt, run, onUserMessage: hooks.onUserMessage })
      end = { answer }
      return answer
    } catch (error) {
      end = { error }
      throw error
    } finally {
      await held.pen.release()
    }
  } finally {
    forget?.()
    if (end !== undefined) hooks.onEnd?.(end)
    place.release()
  }
}

/** A prompt of a session and its place in the session's line of prompts. */
export interface LinedPrompt {
  readonly session: Session
  readonly prompt: readonly ContentBlock[]
  readonly place: LinePlace
  /** Cancels the turn, or takes the prompt back while it waits. */
  readonly signal: AbortSignal
}

/** One prompt turn to run (see {@link runPromptTurn}). */
interface PromptTurn {
  readonly session: Session
  readonly prompt: readonly ContentBlock[]
  readonly signal: AbortSignal
  readonly onUserMessage?: ((messageId: string) => void) | undefined
}

/** How a prompt's turn (and the goal's turns after it) ended: its answer, or what failed. */
export type PromptEnd = { readonly answer: unstable.PromptResponse } | { readonly error: unknown }

/** Who hears of a prompt's turn as it goes (ACP v2's prompt lifecycle, v2/prompt-v2.ts). */
export interface PromptHooks {
  /** The user message's id, once the prompt is in the log (acceptance). */
  readonly onUserMessage?: (messageId: string) => void
  /** How it ended, once it ran (not for a queued prompt taken back), before the next may start. */
  readonly onEnd?: (end: PromptEnd) => void
}

function takenBack(call: CallContext, sessionId: string, messageId: string): unstable.PromptResponse {
  void showQueued(call, sessionId, { messageId, state: 'cancelled' })
  return { stopReason: 'cancelled', _meta: { dsh: { queued: { messageId } } } }
}

async function waitInLine(call: CallContext, sessionId: string, place: LinePlace, signal: AbortSignal) {
  const { messageId } = place
  const position = call.agent.queue.waiting(sessionId).findIndex((q) => q.messageId === messageId) + 1
  void showQueued(call, sessionId, { messageId, state: 'queued', position })
  const takeBack = () => call.agent.queue.takeBack(sessionId, messageId)
  if (signal.aborted) takeBack()
  else signal.addEventListener('abort', takeBack, { once: true })
  const outcome = await place.ready
  signal.removeEventListener('abort', takeBack)
  return outcome
}

/**
 * The session's pen for the place at the head: at once when free; while another process's turn
 * holds it, once that process lets it go (shown as queued at position 1 unless it was shown
 * already). Undefined when the prompt was taken back meanwhile.
 */
async function penInLine(call: CallContext, session: Session, place: LinePlace, signal: AbortSignal) {
  const wait = place.awaitPen()
  const takenBackOrCancelled = AbortSignal.any([signal, wait.signal])
  let waited = false
  const waiting = () => {
    waited = true
    if (!place.queued)
      void showQueued(call, session.id, { messageId: place.messageId, state: 'queued', position: 1 })
  }
  try {
    const pen = await call.sessions.awaitPen(session, takenBackOrCancelled, waiting)
    return { pen, waited }
  } catch (error) {
    if (takenBackOrCancelled.aborted) return undefined
    throw error
  } finally {
    wait.done()
  }
}

function showQueued(call: CallContext, sessionId: string, queued: QueuedState): Promise<void> {
  return call.notify({
    sessionId,
    update: { sessionUpdate: 'session_info_update', _meta: { dsh: { queued: { ...queued } } } },
  })
}

/**
 * One prompt turn, with the session's pen held (a nested hold): what other processes appended is
 * shown first, then the turn runs.
 */
async function runPromptTurn(call: CallContext, turn: PromptTurn): Promise<unstable.PromptResponse> {
  const { session, prompt, signal, onUserMessage } = turn
  const sessionId = session.id
  // Awaited: a pen another host holds refuses the prompt before the model runs.
  const pen = await call.sessions.acquirePen(session)
  let outcome: Awaited<ReturnType<typeof call.agent.runTurn>>
  try {
    await sendCaughtUp(call, session)
    outcome = await call.agent.runTurn(session, {
      prompt,
      signal,
      sendUpdate: (update, seq) => {
        const notification = { sessionId, update, _meta: { dsh: { seq } } }
        // Chunks come before their event: the other attached clients see them as they come.
        if (seq > session.lastSeq) call.streamToOthers(notification, seq)
        return call.notify(notification)
      },
      client: call.clientBridge(sessionId),
      commands: true,
      ...(onUserMessage && { onUserMessage }),
    })
  } finally {
    await pen.release()
  }
  if (outcome.error !== undefined) {
    throw new ProtocolError(ErrorCode.ModelFailed, `the model failed: ${outcome.error}`, {
      sessionId,
      seq: outcome.seq,
    })
  }
  // `usage` is unstable: the stable PromptResponse type has no such field.
  return {
    stopReason: outcome.stopReason,
    ...(outcome.usage !== undefined && { usage: promptUsage(outcome.usage) }),
    _meta: { dsh: { seq: outcome.seq } },
  }
}
