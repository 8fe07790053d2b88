import { randomUUID } from 'node:crypto'
import type { CallContext } from '../call-context.js'
import { type PromptParams, runPrompt } from '../methods/session-prompt.js'

/** Sends one v2 `session/update` of `sessionId` (as it is: already in v2's words). */
export type V2Send = (update: Record<string, unknown>) => Promise<void>

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
  send: V2Send,
  track: (turn: Promise<unknown>) => void,
  writing: <T>(turn: () => Promise<T>) => Promise<T>,
): Promise<{ messageId: string }> {
  return new Promise((accept, refuse) => {
    let accepted = false
    const onUserMessage = (messageId: string) => {
      accepted = true
      void send({ sessionUpdate: 'user_message', messageId, content: params.prompt })
      void send({ sessionUpdate: 'state_update', state: 'running' })
      accept({ messageId })
    }
    const turn = writing(() => runPrompt(params, call, onUserMessage)).then(
      (answer) => {
        if (!accepted) onUserMessage(`cmd_${randomUUID()}`)
        return send({ sessionUpdate: 'state_update', state: 'idle', stopReason: answer.stopReason })
      },
      (error: unknown) => {
        if (!accepted) return refuse(error)
        return send({
          sessionUpdate: 'state_update',
          state: 'idle',
          _meta: { dsh: { error: String(error) } },
        })
      },
    )
    track(turn)
  })
}
