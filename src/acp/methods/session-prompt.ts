import type * as unstable from '@agentclientprotocol/sdk/unstable'
import type { CallContext } from '../call-context.js'
import { defineMethod, type MethodTypes } from '../method.js'
import { promptBlocks } from '../requests/content-blocks.js'
import { type PromptHooks, runInLine } from '../requests/prompt-line.js'
import { openSession } from '../requests/session-access.js'
import { runTrustCommand, trustCommandArgs } from '../trust/trust-command.js'

/**
 * `session/prompt`: runs one turn through the agent loop, streaming `session/update`s (each with
 * `_meta.dsh.seq`), and answers `{ stopReason, usage?, _meta: { dsh: { seq } } }` with the seq of
 * the turn's `turn/end` once the turn is durable, and the turn's token usage (unstable ACP) when
 * the model reported some. Cancelling the request (`$/cancel_request`) cancels
 * the turn like `session/cancel`. A model failure is recorded (`turn/end` reason `error`) and
 * answered with `ModelFailed` saying what failed. When other processes appended to the session
 * since this one last wrote it, their events are first sent as the updates a replay shows. While
 * a turn of this process runs on the session, or another process writes it (its pen), the prompt
 * is queued and runs after it (and the prompts queued before it) as its own turn; see `runInLine`
 * (-32010 `SESSION_LOCKED` where the store cannot be followed).
 */
export const sessionPromptMethod = defineMethod({
  name: 'session/prompt',
  handlesCancellation: true,
  handle: (params, call) => runPrompt(params, call),
})

/** `session/prompt`'s params, schema-checked. */
export type PromptParams = MethodTypes<'session/prompt'>['params']

/**
 * One prompt turn, answered as v1 answers it; `hooks` hear the user message's id once the prompt
 * is in the log (ACP v2's acceptance) and how the turn ended (see v2/prompt-v2.ts).
 */
export async function runPrompt(
  params: PromptParams,
  call: CallContext,
  hooks?: PromptHooks,
): Promise<unstable.PromptResponse> {
  {
    const sessionId = params.sessionId
    const given = promptBlocks('session/prompt', params.prompt, call.agent.promptCapabilities)
    const session = await openSession(call, sessionId)
    const trustArgs = trustCommandArgs(given)
    if (trustArgs !== undefined) {
      await runTrustCommand(call, session, trustArgs)
      return { stopReason: 'end_turn' as const }
    }
    // What `_session/inject` held goes before the next prompt to the model (a slash command keeps it).
    const isCommand = call.agent.features.command(given) !== undefined
    const held = isCommand ? [] : call.agent.queue.takeHeld(sessionId)
    const prompt = held.length > 0 ? [...held, ...given] : given
    const place = call.agent.queue.join(sessionId, prompt)
    return runInLine(call, { session, prompt, place, signal: call.signal }, hooks)
  }
}
