import type { ContentBlock } from '../../session/index.js'
import { ErrorCode, ProtocolError } from '../errors.js'
import type { AcpMethod } from '../method.js'
import { objectParams, type Params } from '../params.js'
import { openSession, sessionIdParam } from './session-access.js'

const BLOCK_CAPABILITY: Readonly<Record<string, 'image' | 'audio' | 'embeddedContext'>> = {
  image: 'image',
  audio: 'audio',
  resource: 'embeddedContext',
}

function promptParam(params: Params, supported: Record<string, boolean>): ContentBlock[] {
  const prompt = params.prompt
  if (!Array.isArray(prompt))
    throw ProtocolError.invalidParams('session/prompt: prompt must be an array of content blocks')
  prompt.forEach((block, index) => {
    if (typeof block !== 'object' || block === null || typeof block.type !== 'string') {
      throw ProtocolError.invalidParams(`session/prompt: prompt[${index}] is not a content block`, { index })
    }
    const needs = BLOCK_CAPABILITY[block.type]
    if (needs !== undefined && !supported[needs]) {
      throw ProtocolError.invalidParams(
        `session/prompt: ${block.type} content is not supported by this agent`,
        { index },
      )
    }
    if (!['text', 'resource_link', ...Object.keys(BLOCK_CAPABILITY)].includes(block.type)) {
      throw ProtocolError.invalidParams(
        `session/prompt: unknown content block type ${JSON.stringify(block.type)}`,
        {
          index,
        },
      )
    }
  })
  return prompt as ContentBlock[]
}

/**
 * `session/prompt`: runs one turn through the agent loop, streaming `session/update`s (each with
 * `_meta.dsh.seq`), and answers `{ stopReason, _meta: { dsh: { seq } } }` with the seq of the
 * turn's `turn/end` once the turn is durable. Cancelling the request (`$/cancel_request`) cancels
 * the turn like `session/cancel`. A model failure is recorded (`turn/end` reason `error`) and
 * answered with `ModelFailed` saying what failed.
 */
export const sessionPromptMethod: AcpMethod = {
  name: 'session/prompt',
  handlesCancellation: true,
  async handle(raw, call) {
    const params = objectParams('session/prompt', raw)
    const sessionId = sessionIdParam(params, 'session/prompt')
    const prompt = promptParam(params, call.agent.promptCapabilities)
    const session = await openSession(call, sessionId)
    const outcome = await call.agent.runTurn(session, {
      prompt,
      signal: call.signal,
      sendUpdate: (update, seq) => call.notify({ sessionId, update, _meta: { dsh: { seq } } }),
      client: call.clientBridge(sessionId),
    })
    if (outcome.error !== undefined) {
      throw new ProtocolError(ErrorCode.ModelFailed, `the model failed: ${outcome.error}`, {
        sessionId,
        seq: outcome.seq,
      })
    }
    return { stopReason: outcome.stopReason, _meta: { dsh: { seq: outcome.seq } } }
  },
}

/** `session/cancel` (notification): the session's running turn stops and ends `cancelled`. */
export const sessionCancelMethod: AcpMethod = {
  name: 'session/cancel',
  notification: true,
  handle(raw, call) {
    const params = objectParams('session/cancel', raw)
    if (typeof params.sessionId === 'string') void call.agent.cancel(params.sessionId)
  },
}
