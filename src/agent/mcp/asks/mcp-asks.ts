export type {
  AskingCall,
  ElicitationModes,
  McpSampler,
  ServerAsks,
  ServerSampling,
} from './ask-types.js'

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { ClientBridge, ElicitationAnswer, ElicitationRequest } from '../../types.js'
import type { AskingCall, ElicitationModes, ServerAsks } from './ask-types.js'
import { acpFormSchema } from './elicitation-schema.js'
import { sample } from './sampling-answer.js'

/**
 * The server's tool calls in flight. A request the server makes (a question, a completion) is
 * attributed to the one call in flight: MCP's stdio wire does not say which call a server request
 * belongs to, so with none in flight, or several (two subagents calling the same server), nobody
 * can be named as asking, and it is refused.
 */
export class AskingCalls {
  private readonly calls = new Set<AskingCall>()

  /** Marks `call` in flight; the returned function ends it. */
  track(call: AskingCall): () => void {
    this.calls.add(call)
    return () => this.calls.delete(call)
  }

  /** The one call in flight, or why there is none to name. */
  current(): AskingCall | string {
    if (this.calls.size === 1) return [...this.calls][0] as AskingCall
    return this.calls.size === 0
      ? 'it asked outside any of its tool calls'
      : 'it asked while several of its tool calls ran, so it is not known which one asks'
  }
}

/**
 * The MCP client capabilities dsh-acp serves: `roots` (unless the server's config turns them off); `elicitation` in the modes the session's
 * client shows (none: not advertised); `sampling` (answered by the session's model once the user
 * allows it). Nothing else is advertised.
 */
export function mcpClientCapabilities(modes: ElicitationModes | undefined, roots = true) {
  const elicitation = {
    ...(modes?.form && { form: {} }),
    ...(modes?.url && { url: {} }),
  }
  return {
    ...(roots && { roots: { listChanged: false } }),
    ...(Object.keys(elicitation).length > 0 && { elicitation }),
    sampling: {},
  }
}

/** What the user reads above a server's question: whose question it is. */
export function askedBy(server: string, message: string): string {
  return `The MCP server "${server}" asks: ${message}`
}

/**
 * Answers the server's `elicitation/create` (when the client shows a mode) and
 * `sampling/createMessage` requests, each attributed to the server's one tool call in flight
 * (see {@link AskingCalls}); the client must have been constructed with
 * {@link mcpClientCapabilities} of `modes`.
 *
 * - A question goes to the editor as an ACP elicitation in the same mode, about the call, its
 *   message naming the server; a form whose schema ACP cannot state (see `acpFormSchema`), a
 *   mode the client does not show, or no call to name is declined. The user's answer is the
 *   server's; a cancelled turn cancels the question (MCP's `cancel`).
 * - A completion is refused in read-only mode or beyond the server's bounds (one open question,
 *   a budget per turn: see `SamplingBounds`); otherwise, unless a standing answer decides, the
 *   user is asked (`session/request_permission` about the call, naming the server, with what it
 *   asks), then the session's model answers the server's messages with its system prompt and
 *   limits. A refusal is MCP's "user rejected" error (-1).
 */
export function answerAsks(client: Client, asks: ServerAsks): void {
  if (asks.modes?.form || asks.modes?.url) answerElicitations(client, asks)
  const { sampling } = asks
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      sample({ ...asks, sampling }, request.params, extra.signal),
    )
  }
}

/** Answers the server's `elicitation/create` (see {@link answerAsks}). */
function answerElicitations(client: Client, { server, calls }: ServerAsks): void {
  // URL questions the user accepted, by id: the server's `notifications/elicitation/complete`
  // for one is passed on to the editor that showed it (ACP `elicitation/complete`).
  const opened = new Map<string, ClientBridge>()
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    const id = notification.params.elicitationId
    opened.get(id)?.elicitation?.complete(id)
    opened.delete(id)
  })
  client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
    const call = calls.current()
    if (typeof call === 'string') return { action: 'decline' }
    const question = elicitationOf(server, request.params, call.callId)
    if (question === undefined || !call.client.elicitation) return { action: 'decline' }
    const signal = AbortSignal.any([call.signal, extra.signal])
    let answer: ElicitationAnswer
    try {
      answer = await call.client.elicitation.create(question, signal)
    } catch (error) {
      if (signal.aborted) return { action: 'cancel' }
      throw error
    }
    if (question.mode === 'url' && answer.action === 'accept')
      remember(opened, question.elicitationId, call.client)
    return answer.action === 'accept' && answer.content
      ? { action: 'accept', content: { ...answer.content } }
      : { action: answer.action }
  })
}

type ElicitParams = ElicitRequest['params']

/** URL questions remembered for their completion, at most; the oldest is forgotten first. */
const MAX_OPENED = 100

function remember(opened: Map<string, ClientBridge>, id: string, client: ClientBridge): void {
  opened.delete(id)
  opened.set(id, client)
  if (opened.size > MAX_OPENED) opened.delete(opened.keys().next().value as string)
}

/** The ACP question for an MCP one, or undefined when it cannot be shown as it is. */
function elicitationOf(
  server: string,
  params: ElicitParams,
  toolCallId: string,
): ElicitationRequest | undefined {
  const message = askedBy(server, params.message)
  if (params.mode === 'url') {
    return { mode: 'url', message, toolCallId, url: params.url, elicitationId: params.elicitationId }
  }
  const form = acpFormSchema(params.requestedSchema)
  if (!form.ok) return undefined
  return { mode: 'form', message, toolCallId, requestedSchema: form.schema }
}
