import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js'
import type { SamplingLimits } from '../../types.js'
import type { AskingCall, ServerAsks, ServerSampling } from './ask-types.js'
import { type SamplingMessages, samplingMessages, samplingPreview } from './mcp-sampling.js'

/**
 * MCP's error for a sampling request the user (or the policy) refused: code -1 and the reason as
 * the message, as it is (the SDK's `McpError` would put "MCP error -1:" into the message itself).
 */
class SamplingRefused extends Error {
  readonly code = -1
}

type SampleParams = CreateMessageRequest['params']

/** A server's sampling request about one call: what the user is asked, and what records an "always". */
interface SamplingAsk {
  readonly server: string
  readonly call: AskingCall
  readonly sampling: ServerSampling
  readonly params: SampleParams
}

/** Answers a server's `sampling/createMessage` (see `answerAsks`). */
export async function sample(
  asks: ServerAsks & { readonly sampling: ServerSampling },
  params: SampleParams,
  serverSignal: AbortSignal,
): Promise<CreateMessageResult> {
  const { server, calls, sampling } = asks
  const call = calls.current()
  if (typeof call === 'string') throw new SamplingRefused(`Sampling refused: ${call}`)
  const messages = admit({ server, call, sampling, params })
  const signal = AbortSignal.any([call.signal, serverSignal])
  const standing = sampling.sampler.permissions(call.sessionId).standing().get(scopeOf(server))
  if (standing === false) throw new SamplingRefused('User rejected sampling request')
  if (standing === undefined) {
    const asked = await sampling.bounds.question(() =>
      askToSample({ server, call, sampling, params }, signal),
    )
    if (asked === undefined)
      throw new SamplingRefused('Sampling refused: another sampling request of this server awaits the user')
  }
  const answer = await sampling.sampler.complete(call.sessionId, messages, limitsOf(params), signal)
  return {
    role: 'assistant',
    content: { type: 'text', text: answer.text },
    model: answer.model,
    stopReason: answer.stopReason,
  }
}

/** The request's messages, once it is within the server's bounds and the session's mode; else refused. */
function admit({ call, sampling, params }: SamplingAsk): SamplingMessages {
  const overBudget = sampling.bounds.take(call)
  if (overBudget !== undefined) throw new SamplingRefused(`Sampling refused: ${overBudget}`)
  if (params.tools !== undefined && params.tools.length > 0) {
    throw new SamplingRefused('Sampling refused: sampling with tools is not supported')
  }
  const messages = samplingMessages(params.messages)
  if (typeof messages === 'string') throw new SamplingRefused(`Sampling refused: ${messages}`)
  if (sampling.sampler.permissions(call.sessionId).mode() === 'read-only') {
    throw new SamplingRefused('Sampling refused: the session is read-only')
  }
  return messages
}

/** The standing answers' scope of a server's sampling. */
function scopeOf(server: string): string {
  return `mcp-sampling:${server}`
}

function limitsOf(params: SampleParams): SamplingLimits {
  return {
    maxTokens: params.maxTokens,
    ...(params.systemPrompt !== undefined && { systemPrompt: params.systemPrompt }),
    ...(params.temperature !== undefined && { temperature: params.temperature }),
    ...(params.stopSequences !== undefined && { stopSequences: params.stopSequences }),
  }
}

/** Asks the user about the completion; returns when allowed, throws MCP's "user rejected" otherwise. */
async function askToSample(
  { server, call, sampling, params }: SamplingAsk,
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
  const { sampler } = sampling
  if (answer === 'allow_always' || answer === 'reject_always') {
    sampler.recordAlways(call.sessionId, call.tool, scopeOf(server), answer === 'allow_always')
  }
  if (answer !== 'allow_once' && answer !== 'allow_always') {
    throw new SamplingRefused('User rejected sampling request')
  }
  // The mode may have changed while the user was asked.
  if (sampler.permissions(call.sessionId).mode() === 'read-only') {
    throw new SamplingRefused('Sampling refused: the session is read-only')
  }
}
