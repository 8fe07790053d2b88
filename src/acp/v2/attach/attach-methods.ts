import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import type { CallContext } from '../../call-context.js'
import type { ClientState } from '../../client-state.js'
import { ProtocolError } from '../../errors.js'
import { checkedParams } from '../../extension-params.js'
import { defineMethod } from '../../method.js'
import { connectMcpServers } from '../../requests/mcp-servers.js'
import { assertSessionId } from '../../requests/session-access.js'
import type { AcpServer } from '../../server.js'
import { replayAndAttach } from '../../views/replay/replay-attach.js'
import { announceLoadedSession } from '../../views/session-announce.js'
import { PROTOCOL_V2 } from '../initialize-v2.js'
import { seenBefore } from '../reader.js'
import { sendResumeState } from '../resume-state-v2.js'
import { validateAttachParams, validateDetachParams, validateReadyParams } from './wire-validators.gen.js'

/** What a client may subscribe to; every attachment gets all three. */
const SUBSCRIPTIONS = ['events', 'pending_interactions', 'presence'] as const
/** Attachments a connection may hold that wait for their `session/ready`. */
const MAX_WAITING = 64

/** An attachment answered, waiting for its delivery barrier. */
interface Waiting {
  readonly sessionId: string
  readonly attachmentId: string
  /** The replay starts after this seq. */
  readonly seen: number
}

/** Per connection (its client state, one per `initialize`), its attachments waiting for `session/ready`. */
const waiting = new WeakMap<ClientState, Map<string, Waiting>>()

function servedTo(call: CallContext, method: string): ClientState {
  const client = call.client
  if (client === undefined || client.protocolVersion !== PROTOCOL_V2)
    throw ProtocolError.methodNotFound(method)
  return client
}

/**
 * `session/attach` (the ACP Remote draft's, v2 connections only): answers at once, with the
 * session's latest event (`recovery.latestSourceEventId`, its seq as a decimal string) and a
 * delivery barrier; nothing of the session is sent before `session/ready` names that barrier.
 * `replayFrom` picks what the replay then holds (`start`: all; `after_event`: after that seq;
 * absent: after the latest at the answer). Unknown session: -32002; a seq past the log: -32602.
 */
export const sessionAttachMethod = defineMethod({
  name: 'session/attach',
  async handle(params: unknown, call) {
    const client = servedTo(call, 'session/attach')
    const checked = checkedParams('session/attach', validateAttachParams, params)
    const sessionId = assertSessionId(checked.sessionId)
    const latest = await call.sessions.borrow(sessionId, (session) => session.lastSeq)
    const seen = checked.replayFrom === undefined ? latest : seenBefore('session/attach', checked.replayFrom)
    if (seen > latest)
      throw ProtocolError.invalidParams(
        `session/attach: replayFrom: event ${seen} is past the session's last event (${latest})`,
        { sessionId, lastSeq: latest },
      )
    const mine = waiting.get(client) ?? new Map<string, Waiting>()
    if (mine.size >= MAX_WAITING)
      throw ProtocolError.invalidParams(
        `session/attach: ${MAX_WAITING} attachments wait for session/ready already`,
      )
    waiting.set(client, mine)
    const attachmentId = `att_${randomUUID()}`
    const deliveryBarrierId = `bar_${randomUUID()}`
    mine.set(deliveryBarrierId, { sessionId, attachmentId, seen })
    return {
      attachmentId,
      attachmentRevision: 1,
      participantId: call.client?.info?.name ?? 'client',
      roles: ['viewer', 'prompter', 'approver'],
      sessionVersion: String(latest),
      controlPolicy: 'ordered_multi_writer',
      recovery: { type: 'event_replay', latestSourceEventId: String(latest) },
      deliveryBarrierId,
      effectiveSubscriptions: [...SUBSCRIPTIONS],
    }
  },
})

/**
 * `session/ready`: the delivery barrier of an attachment. Replays what its attach chose, attaches
 * the connection (every update live from then on, whoever causes it), sends the commands and the
 * turn's `state_update`, then answers `{}`. The session's MCP servers stay as they are; a session
 * live nowhere in this process gets the configured ones. An unknown barrier: -32602.
 */
export const sessionReadyMethod = defineMethod({
  name: 'session/ready',
  async handle(params: unknown, call) {
    const client = servedTo(call, 'session/ready')
    const { sessionId, deliveryBarrierId } = checkedParams('session/ready', validateReadyParams, params)
    const attachment = waiting.get(client)?.get(deliveryBarrierId)
    if (!attachment || attachment.sessionId !== sessionId)
      throw ProtocolError.invalidParams(
        `session/ready: no attachment of ${sessionId} waits on ${deliveryBarrierId}`,
      )
    waiting.get(client)?.delete(deliveryBarrierId)
    const wasLive = call.sessions.get(sessionId) !== undefined
    const cwd = await call.sessions.borrow(sessionId, (session) => session.cwd)
    const session = await replayAndAttach(call, {
      method: 'session/ready',
      sessionId,
      cwd,
      seen: attachment.seen,
    })
    if (!wasLive) await connectMcpServers(call, session, [])
    await announceLoadedSession(call, session)
    await sendResumeState({ sessionId }, call, (id, update) => {
      call.notifyClient('session/update', { sessionId: id, update })
      return Promise.resolve()
    })
    return {}
  },
})

/**
 * `session/detach`: this connection stops following the session, which goes on for the other
 * clients. Detaching is not ending (the draft keeps the two apart): a turn running goes on to its
 * end whoever started it; when no client is left and no turn runs, the session is let go here
 * (it stays stored).
 */
export const sessionDetachMethod = defineMethod({
  name: 'session/detach',
  async handle(params: unknown, call) {
    const client = servedTo(call, 'session/detach')
    const { sessionId } = checkedParams('session/detach', validateDetachParams, params)
    for (const [barrier, attachment] of waiting.get(client) ?? [])
      if (attachment.sessionId === sessionId) waiting.get(client)?.delete(barrier)
    if (call.sessions.get(sessionId) === undefined) return {}
    if (call.detach(sessionId) === 0 && !call.agent.isRunning(sessionId)) await call.sessions.close(sessionId)
    return {}
  },
})

/** Registers the attach methods on `server` for as long as `ctx` lives. */
export function registerAttachMethods(ctx: Context, server: AcpServer): void {
  for (const method of [sessionAttachMethod, sessionReadyMethod, sessionDetachMethod])
    ctx.on('dispose', server.register(method))
}
