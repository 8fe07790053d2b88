import { createRedactor } from '../src/agent/providers/http/redact.js'
import { readCompletion } from '../src/agent/providers/openai/completion-stream.js'
import { type BenchRow, collectGarbage, timeMedian } from './harness.js'

/**
 * Reading a model's answer (issue 28): one tool call whose arguments are 50 MB, streamed as
 * 4 KiB argument pieces in SSE events and read by the 64 KiB body chunk (limits raised so it
 * fits), next to `JSON.parse` of the same arguments text. Linear reading keeps the ratio small
 * and flat as the size grows (at 3c86a6c the 50 MB call took about 16 s).
 */

const ARGUMENT_BYTES = 50 * 1024 * 1024
const PIECE = 4096
const BODY_CHUNK = 64 * 1024

function sseBody(): { chunks: Uint8Array[]; argument: string } {
  const content = 'x'.repeat(ARGUMENT_BYTES - 30)
  const argument = JSON.stringify({ path: 'big.txt', content })
  let text = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'write_text_file', arguments: '' } }] } }] })}\n\n`
  const events: string[] = [text]
  for (let at = 0; at < argument.length; at += PIECE) {
    const piece = argument.slice(at, at + PIECE)
    events.push(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }] })}\n\n`,
    )
  }
  events.push(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`,
  )
  text = events.join('')
  const bytes = new TextEncoder().encode(text)
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += BODY_CHUNK) chunks.push(bytes.subarray(at, at + BODY_CHUNK))
  return { chunks, argument }
}

async function readAll(chunks: readonly Uint8Array[]): Promise<number> {
  let index = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[index++]
      if (next) controller.enqueue(next)
      else controller.close()
    },
  })
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  const limits = { maxEventChars: 64 << 20, maxAnswerChars: 64 << 20, maxToolArgumentChars: 64 << 20 }
  const context = { display: 'http://bench', redact: createRedactor([]), keySent: false }
  let calls = 0
  const hooks = { onBytes: () => {}, aborted: () => false }
  for await (const chunk of readCompletion(response, hooks, { contextWindow: undefined, context, limits })) {
    if (chunk.type === 'tool_call') calls++
  }
  if (calls !== 1) throw new Error(`expected one tool call, got ${calls}`)
  return calls
}

export const suite = {
  name: 'model-stream',
  async run(): Promise<BenchRow[]> {
    const { chunks, argument } = sseBody()
    collectGarbage()
    const ours = await timeMedian(() => readAll(chunks), 5)
    collectGarbage()
    const baseline = await timeMedian(() => JSON.parse(argument), 5)
    return [
      {
        group: 'model stream',
        name: 'read a 50 MB tool argument streamed in 4 KiB SSE pieces',
        ours,
        baselineName: 'JSON.parse of the same argument',
        baseline,
        unit: 'ms',
        better: 'lower',
        target: 10,
        note: `${chunks.length} body chunks of 64 KiB; linear: at 3c86a6c this took about 16 s`,
      },
    ]
  },
}
