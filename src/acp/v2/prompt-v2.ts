import { randomUUID } from 'node:crypto'
import type { CallContext } from '../call-context.js'
import { type PromptParams, runPrompt } from '../methods/session-prompt.js'
import type { PromptEnd } from '../requests/prompt-line.js'
import { steerV2 } from './steer-v2.js'

/** Sends one v2 `session/update` of `sessionId` (as it is: already in v2's words). */
export type V2Send = (update: Record<string, unknown>) => Promise<void>

/** What a v2 turn needs of its connection (see {@link promptV2}). */
export interface V2Turn {
  readonly send: V2Send
  readonly track: (turn: Promise<unknown>) => void
  readonly writing: <T>(turn: () => Promise<T>) => Promise<T>
}

/**
 * ACP v2's `session/prompt`: answered `{messageId}` once the prompt is in the log (acceptance),
 * after a `user_message` with that id and `state_update running`; the turn's updates follow, and
 * `state_update idle` with its stop reason ends it (a cancelled turn: `cancelled`; a turn that
 * failed after acceptance: idle without a stop reason, what failed in `_meta.dsh.error`). A prompt
 * refused before acceptance (unknown session, locked) is answered with its error. `track` keeps
 * the connection counting the turn as running until it has ended; `writing` runs the whole turn
 * (the connection shows what it appends itself, so its other attachments do not repeat it).
 */
export function promptV2(
  params: PromptParams,
  call: CallContext,
  { send, track, writing }: V2Turn,
): Promise<{ messageId: string }> {
  return new Promise((accept, refuse) => {
    let accepted = false
    let idle = false
    const onUserMessage = (messageId: string) => {
      accepted = true
      void send({ sessionUpdate: 'user_message', messageId, content: params.prompt })
      void send({ sessionUpdate: 'state_update', state: 'running' })
      accept({ messageId })
    }
    // Sent as the turn ends, before the next prompt's turn may start (its `running` follows this).
    const onEnd = (end: PromptEnd) => {
      if (!accepted && 'answer' in end) onUserMessage(`cmd_${randomUUID()}`)
      if (!accepted) return
      idle = true
      void send(idleUpdate(end))
    }
    const turn = writing(() => runPrompt(params, call, { onUserMessage, onEnd })).then(
      (answer) => {
        if (!idle) onEnd({ answer })
      },
      (error: unknown) => {
        if (!accepted) refuse(error)
        else if (!idle) onEnd({ error })
      },
    )
    track(turn)
  })
}

/** `state_update idle`: with the turn's stop reason, or (it failed) what failed in `_meta.dsh.error`. */
function idleUpdate(end: PromptEnd): Record<string, unknown> {
  if ('answer' in end)
    return { sessionUpdate: 'state_update', state: 'idle', stopReason: end.answer.stopReason }
  return { sessionUpdate: 'state_update', state: 'idle', _meta: { dsh: { error: String(end.error) } } }
}

/**
 * A v2 `session/prompt`: steered into the turn running on the session (`steerV2`), else run as a
 * turn of its own (`promptV2`, queued behind the running one when the running one no longer takes
 * steers).
 */
export function promptOrSteerV2(
  params: PromptParams,
  call: CallContext,
  turn: V2Turn,
): Promise<{ messageId: string }> {
  return steerV2(params, call) ?? promptV2(params, call, turn)
}
