import type * as acp from '@agentclientprotocol/sdk'
import type { ElicitationAnswer, ElicitationBridge, ElicitationRequest } from '../../agent/types.js'
import { type ClientRequestSender, sendClientRequest } from './client-requests.js'

/** What the client said it can do (`ClientState` of method.ts, which this must not import). */
type AdvertisedBy = { readonly capabilities: acp.ClientCapabilities } | undefined

/** Sends one notification to the client (never rejects). */
export type ClientNotifier = (
  method: 'elicitation/complete',
  params: acp.CompleteElicitationNotification,
) => Promise<void>

/** Where a question is shown: the session and tool call it names on the wire. */
export type ElicitationTarget = (toolCallId: string | undefined) => {
  readonly sessionId: string
  readonly toolCallId?: string
}

/** The elicitation modes the client advertised (`{}` advertises one; omitted or null: not). */
export function elicitationModes(client: AdvertisedBy): { form: boolean; url: boolean } {
  const advertised = client?.capabilities.elicitation
  const on = (mode: unknown) => typeof mode === 'object' && mode !== null && !Array.isArray(mode)
  return { form: on(advertised?.form), url: on(advertised?.url) }
}

/**
 * ACP `elicitation/create` for one session, when the client advertised a mode (else undefined).
 * A request in a mode the client did not advertise is answered `decline` without asking. An action
 * the client invents (ACP's "other") counts as `cancel`: it is not a known answer. `complete`
 * sends `elicitation/complete` through `notify` (to a client that advertised `url`).
 */
export function elicitationBridge(
  send: ClientRequestSender,
  client: AdvertisedBy,
  target: ElicitationTarget,
  notify?: ClientNotifier,
): ElicitationBridge | undefined {
  const modes = elicitationModes(client)
  if (!modes.form && !modes.url) return undefined
  return {
    ...modes,
    async create(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
      if (!modes[request.mode]) return { action: 'decline' }
      const { sessionId, toolCallId } = target(request.toolCallId)
      const scope = { sessionId, ...(toolCallId !== undefined && { toolCallId }) }
      const params: acp.CreateElicitationRequest =
        request.mode === 'form'
          ? { ...scope, mode: 'form', message: request.message, requestedSchema: request.requestedSchema }
          : {
              ...scope,
              mode: 'url',
              message: request.message,
              url: request.url,
              elicitationId: request.elicitationId,
            }
      const response = await sendClientRequest(send, 'elicitation/create', params, signal)
      return answerOf(response)
    },
    complete(elicitationId: string): void {
      if (modes.url) void notify?.('elicitation/complete', { elicitationId })
    },
  }
}

function answerOf(response: acp.CreateElicitationResponse): ElicitationAnswer {
  if (response.action === 'accept') {
    const accepted = (response as { content?: { [key: string]: acp.ElicitationContentValue } | null }).content
    return accepted ? { action: 'accept', content: accepted } : { action: 'accept' }
  }
  if (response.action === 'decline') return { action: 'decline' }
  return { action: 'cancel' }
}
