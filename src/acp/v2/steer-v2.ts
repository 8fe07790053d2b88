import { Steering } from '../../agent/steering/steering.js'
import type { CallContext } from '../call-context.js'
import { ErrorCode, ProtocolError } from '../errors.js'
import type { PromptParams } from '../methods/session-prompt.js'
import { promptBlocks } from '../requests/content-blocks.js'
import { trustCommandArgs } from '../trust/trust-command.js'

/**
 * ACP v2's `session.steering` draft: a `session/prompt` sent while a turn of this process runs on
 * the session (running, or waiting on the user) is inserted into that turn at its next safe point,
 * as `_session/steering` is on v1 (after the current step's tool results, never inside a tool
 * call), and answered `{messageId}` once it is in the log; it is shown as the whole `user_message`
 * (`_meta.dsh.steered`) and the turn goes on, with no `idle` in between. A steer the turn drops
 * before its safe point (`session/cancel`) is answered -32800 and never inserted. Undefined when
 * no turn takes steers (none runs, or the running one has made its last model request), and for a
 * slash command (a command is a turn of its own): then the prompt runs as a turn of its own, after
 * the running one.
 */
export function steerV2(params: PromptParams, call: CallContext): Promise<{ messageId: string }> | undefined {
  const prompt = promptBlocks('session/prompt', params.prompt, call.agent.promptCapabilities)
  if (call.agent.features.command(prompt) !== undefined || trustCommandArgs(prompt) !== undefined)
    return undefined
  // Offered at once, as the request is read: a turn running here has its session open, and a steer
  // read before the answer to the turn's permission request is in the turn's next step.
  let taken = false
  const inserted = new Promise<{ messageId: string }>((accept, refuse) => {
    taken = call.agent.features.get(Steering).steer(params.sessionId, prompt, {
      delivered: (messageId) => accept({ messageId }),
      dropped: () =>
        refuse(
          new ProtocolError(
            ErrorCode.RequestCancelled,
            'session/prompt: the turn was cancelled before this message was inserted; it was not sent',
          ),
        ),
    })
  })
  if (!taken) return undefined
  return inserted
}
