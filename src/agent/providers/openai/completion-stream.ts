import type { ModelChunk } from '../../types.js'
import {
  endedEarlyFailure,
  errorText,
  type FailureContext,
  limitFailure,
  malformedFailure,
  reportedFailure,
} from '../http/failures.js'
import { ModelServerError } from '../http/model-server-error.js'
import { readSseBatches } from '../http/sse.js'
import { StreamLimitError, type StreamLimits } from '../http/stream-limits.js'
import type { ReadHooks } from '../http/streaming-post.js'
import { CompletionAccumulator } from './completion-accumulator.js'

/** What reading one completion is bounded and described by. */
export interface CompletionRead {
  /** The model's context window, reported with the usage (absent: unknown). */
  readonly contextWindow: number | undefined
  /** Who answered, for the failures' messages. */
  readonly context: FailureContext
  readonly limits: StreamLimits
}

/**
 * The chunks of one 2xx chat-completions response. A `text/event-stream` body is read as it
 * streams and ends at `[DONE]`; a stream that stops before `[DONE]` counts as complete only if a
 * `finish_reason` arrived, otherwise it throws "ended the stream before the model finished" after
 * the chunks that did arrive. A JSON body (a server that ignored `stream: true`) is read whole, up
 * to `limits.maxEventChars`. An error the server reports (an `error` event or payload,
 * `finish_reason: "error"`) throws after the chunks before it; so does a response past one of
 * `limits`, without the chunks of the payload that crossed it.
 */
export async function* readCompletion(
  response: Response,
  hooks: ReadHooks,
  { contextWindow, context, limits }: CompletionRead,
): AsyncGenerator<ModelChunk> {
  const accumulator = new CompletionAccumulator(contextWindow, limits)
  const contentType = response.headers.get('content-type') ?? ''
  if (contentType.includes('application/json')) {
    const completion = parseJson(await readText(response, limits.maxEventChars, hooks, context), context)
    for (const chunk of accept(accumulator, asStreamChunk(completion), context)) yield chunk
    for (const chunk of accumulator.finish()) yield chunk
    return
  }
  if (!response.body) throw endedEarlyFailure(context)
  let done = false
  try {
    read: for await (const events of readSseBatches(response.body, hooks.onBytes, limits.maxEventChars)) {
      for (const event of events) {
        if (event.event === 'error') throw reportedFailure(errorText(parseLoose(event.data)), context)
        if (event.event !== 'message') continue
        if (event.data.trim() === '[DONE]') {
          done = true
          break read
        }
        for (const chunk of accept(accumulator, parseJson(event.data, context), context)) yield chunk
      }
    }
  } catch (error) {
    if (error instanceof StreamLimitError) throw limitFailure(error, context)
    // A connection lost after the model finished loses only the usage report, not the answer.
    if (error instanceof ModelServerError || !accumulator.finished || hooks.aborted()) throw error
    done = true
  }
  if (!done && !accumulator.finished) throw endedEarlyFailure(context)
  for (const chunk of accumulator.finish()) yield chunk
}

/** The payload's chunks; throws when the payload went past a limit or said the step failed. */
function* accept(
  accumulator: CompletionAccumulator,
  payload: unknown,
  context: FailureContext,
): Generator<ModelChunk> {
  let chunks: ModelChunk[]
  try {
    chunks = accumulator.accept(payload)
  } catch (error) {
    if (error instanceof StreamLimitError) throw limitFailure(error, context)
    throw error
  }
  yield* chunks
  if (accumulator.failure !== undefined) throw reportedFailure(accumulator.failure, context)
}

/** A whole body as text, throwing past `maxChars` (a body can be as hostile as a stream). */
async function readText(
  response: Response,
  maxChars: number,
  hooks: ReadHooks,
  context: FailureContext,
): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder('utf-8')
  let text = ''
  let finished = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      hooks.onBytes()
      text += decoder.decode(value, { stream: true })
      if (text.length > maxChars) throw limitFailure(new StreamLimitError('event', maxChars), context)
    }
    finished = true
    return text + decoder.decode()
  } finally {
    if (!finished) reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

function parseJson(data: string, context: FailureContext): unknown {
  try {
    return JSON.parse(data)
  } catch {
    throw malformedFailure(`an event that is not JSON: ${data.slice(0, 200)}`, context)
  }
}

function parseLoose(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return data
  }
}

/** A whole (non-streamed) completion seen as one stream chunk: each choice's `message` as its delta. */
function asStreamChunk(completion: unknown): unknown {
  if (typeof completion !== 'object' || completion === null || !('choices' in completion)) return completion
  const { choices } = completion as { choices: unknown }
  if (!Array.isArray(choices)) return completion
  return {
    ...completion,
    choices: choices.map((choice: unknown) =>
      typeof choice === 'object' && choice !== null && 'message' in choice
        ? { ...choice, delta: (choice as { message: unknown }).message }
        : choice,
    ),
  }
}
