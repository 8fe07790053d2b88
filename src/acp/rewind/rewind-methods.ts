import type { Context } from 'cordis'
import { isObject } from '../../lib/is.js'
import { undoablePrompts } from '../../session/index.js'
import { ProtocolError } from '../errors.js'
import { checkedParams } from '../extension-params.js'
import { defineMethod } from '../method.js'
import { openSession } from '../requests/session-access.js'
import type { AcpServer } from '../server.js'
import { airRewind } from './air-rewind.js'
import { modeRewind } from './mode-rewind.js'
import {
  validateAirRewindParams,
  validateModeRewindParams,
  validateRewindPointsParams,
} from './wire-validators.gen.js'

/**
 * `_session/rewind`, both contracts on one method, told apart by their required field:
 * `beforeMessage` is JetBrains AIR's (`air-rewind.ts`), `messageId` claude-agent-acp's with
 * modes (`mode-rewind.ts`); both, or neither, is -32602.
 */
export const sessionRewindMethod = defineMethod({
  name: '_session/rewind',
  async handle(params: unknown, call) {
    const air = isObject(params) && Object.hasOwn(params, 'beforeMessage')
    const modes = isObject(params) && Object.hasOwn(params, 'messageId')
    if (air === modes) {
      throw ProtocolError.invalidParams(
        '_session/rewind: give beforeMessage (the JetBrains AIR contract) or messageId (with mode: files, conversation or both), not both',
      )
    }
    if (air) return airRewind(checkedParams('_session/rewind', validateAirRewindParams, params), call)
    return modeRewind(checkedParams('_session/rewind', validateModeRewindParams, params), call)
  },
})

/**
 * `_session/rewind_points {sessionId}` → `{points: [{messageId, resumeAtMessageId, text, index}]}`:
 * the prompts `/rewind N` counts (not a slash command's), oldest first (read from its log, so a
 * loaded session's too);
 * `resumeAtMessageId` is the agent message before it (null when none).
 */
export const sessionRewindPointsMethod = defineMethod({
  name: '_session/rewind_points',
  async handle(params: unknown, call) {
    const { sessionId } = checkedParams('_session/rewind_points', validateRewindPointsParams, params)
    const session = await openSession(call, sessionId)
    return {
      points: undoablePrompts(session).map((point, i) => ({
        messageId: point.messageId,
        resumeAtMessageId: point.resumeAt ? session.messageIdAt(point.resumeAt.seq) : null,
        text: point.text,
        index: i + 1,
      })),
    }
  },
})

/** Registers both rewind methods on `server` for as long as `ctx` lives. */
export function registerRewindMethods(ctx: Context, server: AcpServer): void {
  const unregister = [server.register(sessionRewindMethod), server.register(sessionRewindPointsMethod)]
  ctx.on('dispose', () => {
    for (const remove of unregister) remove()
  })
}
