import type { ModelChunk } from '../../types.js'
import { endedEarlyFailure, errorText, type FailureContext, streamFailure } from '../http/failures.js'
import { ModelServerError } from '../http/model-server-error.js'
import { readSseBatches } from '../http/sse.js'
import type { ReadHooks } from '../http/streaming-post.js'
import { CompletionAccumulator } from './completion-accumulator.js'

/**
 * The chunks of one 2xx chat-completions response. A `text/event-stream` body is read as it
 * streams and ends at `[DONE]`; a stream that stops before `[DONE]` counts as complete only if a
 * `finish_reason` arrived, otherwise it throws "stream ended before the model finished" after
 * the chunks that did arrive. A JSON body (a server that ignored `stream: true`) is read whole.
 */
export async function* readCompletion(
  response: Response,
  contextWindow: number | undefined,
  hooks: ReadHooks,
  context: FailureContext,
): AsyncGenerator<ModelChunk> {
  const accumulator = new CompletionAccumulator(contextWindow)
  const contentType = response.headers.get('content-type') ?? ''
  if (contentType.includes('application/json')) {
    const completion = parseJson(await response.text(), context)
    hooks.onBytes()
    for (const chunk of accept(accumulator, asStreamChunk(completion), context)) yield chunk
    for (const chunk of accumulator.finish()) yield chunk
    return
  }
  if (!response.body) throw endedEarlyFailure(context)
  let done = false
  try {
    read: for await (const events of readSseBatches(response.body, hooks.onBytes)) {
      for (const event of events) {
        if (event.event === 'error')
          throw streamFailure(`error event: ${errorText(parseLoose(event.data))}`, context)
        if (event.event !== 'message') continue
        if (event.data.trim() === '[DONE]') {
          done = true
          break read
        }
        for (const chunk of accept(accumulator, parseJson(event.data, context), context)) yield chunk
      }
    }
  } catch (error) {
    // A connection lost after the model finished loses only the usage report, not the answer.
    if (error instanceof ModelServerError || !accumulator.finished || hooks.aborted()) throw error
    done = true
  }
  if (!done && !accumulator.finished) throw endedEarlyFailure(context)
  for (const chunk of accumulator.finish()) yield chunk
}

function accept(accumulator: CompletionAccumulator, payload: unknown, context: FailureContext): ModelChunk[] {
  try {
    return accumulator.accept(payload)
  } catch (error) {
    throw streamFailure((error as Error).message, context)
  }
}

function parseJson(data: string, context: FailureContext): unknown {
  try {
    return JSON.parse(data)
  } catch {
    throw streamFailure(`sent an event that is not JSON: ${data.slice(0, 200)}`, context)
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
