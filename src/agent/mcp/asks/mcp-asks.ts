import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitationCompleteNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js'
import type { JsonValue } from '../../../session/index.js'
import type { LivePermissions } from '../../config/permissions.js'
import type {
  ClientBridge,
  ElicitationAnswer,
  ElicitationRequest,
  SamplingLimits,
  ToolKind,
} from '../../types.js'
import { acpFormSchema } from './elicitation-schema.js'
import { type SamplingMessages, samplingMessages, samplingPreview } from './mcp-sampling.js'
import type { SamplingBounds } from './sampling-bounds.js'

/** The elicitation modes a session's client shows: what its MCP servers are told they may ask in. */
export interface ElicitationModes {
  readonly form: boolean
  readonly url: boolean
}

/** How one server's sampling requests are answered: by `sampler`, within `bounds`. */
export interface ServerSampling {
  readonly sampler: McpSampler
  readonly bounds: SamplingBounds
}

/** What answering a server's sampling request needs from the agent. */
export interface McpSampler {
  /** The session's live permissions (its running turn's): read-only refuses, standing answers decide. */
  permissions(sessionId: string): LivePermissions
  /** Records an "always" answer for `scope` in the session's log (a `permission:always` event). */
  recordAlways(sessionId: string, tool: string, scope: string, allow: boolean): void
  /** One completion by the session's model, with the server's messages and limits. */
  complete(
    sessionId: string,
    messages: SamplingMessages,
    limits: SamplingLimits,
    signal: AbortSignal,
  ): Promise<{ readonly text: string; readonly model: string; readonly stopReason: 'endTurn' | 'maxTokens' }>
}

/** One of the server's tool calls while it runs: whom a request of the server during it concerns. */
export interface AskingCall {
  readonly sessionId: string
  readonly callId: string
  /** The turn of the session the call belongs to (sampling is bounded per turn). */
  readonly turn: number
  /** The registered tool name and the call's title and input, as the editor shows the call. */
  readonly tool: string
  readonly title: string
  readonly kind: ToolKind
  readonly input: JsonValue
  readonly client: ClientBridge
  readonly signal: AbortSignal
}

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

/**
 * MCP's error for a sampling request the user (or the policy) refused: code -1 and the reason as
 * the message, as it is (the SDK's `McpError` would put "MCP error -1:" into the message itself).
 */
class SamplingRefused extends Error {
  readonly code = -1
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
export function answerAsks(
  client: Client,
  server: string,
  calls: AskingCalls,
  modes: ElicitationModes | undefined,
  sampling: ServerSampling | undefined,
): void {
  if (modes?.form || modes?.url) {
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
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      sample(server, calls, sampling, request.params, extra.signal),
    )
  }
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

async function sample(
  server: string,
  calls: AskingCalls,
  { sampler, bounds }: ServerSampling,
  params: CreateMessageRequest['params'],
  serverSignal: AbortSignal,
): Promise<CreateMessageResult> {
  const call = calls.current()
  if (typeof call === 'string') throw new SamplingRefused(`Sampling refused: ${call}`)
  const overBudget = bounds.take(call)
  if (overBudget !== undefined) throw new SamplingRefused(`Sampling refused: ${overBudget}`)
  if (params.tools !== undefined && params.tools.length > 0) {
    throw new SamplingRefused('Sampling refused: sampling with tools is not supported')
  }
  const messages = samplingMessages(params.messages)
  if (typeof messages === 'string') throw new SamplingRefused(`Sampling refused: ${messages}`)
  const permissions = sampler.permissions(call.sessionId)
  if (permissions.mode() === 'read-only') {
    throw new SamplingRefused('Sampling refused: the session is read-only')
  }
  const scope = `mcp-sampling:${server}`
  const signal = AbortSignal.any([call.signal, serverSignal])
  const standing = permissions.standing().get(scope)
  if (standing === false) throw new SamplingRefused('User rejected sampling request')
  if (standing === undefined) {
    const asked = await bounds.question(() => askToSample(server, call, sampler, scope, params, signal))
    if (asked === undefined)
      throw new SamplingRefused('Sampling refused: another sampling request of this server awaits the user')
  }
  const limits: SamplingLimits = {
    maxTokens: params.maxTokens,
    ...(params.systemPrompt !== undefined && { systemPrompt: params.systemPrompt }),
    ...(params.temperature !== undefined && { temperature: params.temperature }),
    ...(params.stopSequences !== undefined && { stopSequences: params.stopSequences }),
  }
  const answer = await sampler.complete(call.sessionId, messages, limits, signal)
  return {
    role: 'assistant',
    content: { type: 'text', text: answer.text },
    model: answer.model,
    stopReason: answer.stopReason,
  }
}

/** Asks the user about the completion; returns when allowed, throws MCP's "user rejected" otherwise. */
async function askToSample(
  server: string,
  call: AskingCall,
  sampler: McpSampler,
  scope: string,
  params: CreateMessageRequest['params'],
  signal: AbortSignal,
): Promise<void> {
  const ask = call.client.requestPermission
  if (!ask) throw new SamplingRefused('Sampling refused: the editor cannot ask the user')
  const text = samplingPreview(server, params)
  const answer = await ask(
    {
      sessionId: call.sessionId,
      toolCallId: call.callId,
      title: call.title,
      kind: call.kind,
      rawInput: call.input,
      content: [{ type: 'content', content: { type: 'text', text } }],
    },
    signal,
  )
  if (answer === 'allow_always' || answer === 'reject_always') {
    sampler.recordAlways(call.sessionId, call.tool, scope, answer === 'allow_always')
  }
  if (answer !== 'allow_once' && answer !== 'allow_always') {
    throw new SamplingRefused('User rejected sampling request')
  }
  // The mode may have changed while the user was asked.
  if (sampler.permissions(call.sessionId).mode() === 'read-only') {
    throw new SamplingRefused('Sampling refused: the session is read-only')
  }
}
