import { describe, expect, it } from 'vitest'
import type { ModelChunk } from '../../types.js'
import { StreamLimitError } from '../http/stream-limits.js'
import { CompletionAccumulator } from './completion-accumulator.js'

/** Stream shapes real servers send, written here from their documented and observed behaviour. */
const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
})
const call = (fragment: Record<string, unknown>) => choice({ tool_calls: [fragment] })

function run(payloads: readonly unknown[], accumulator = new CompletionAccumulator()): ModelChunk[] {
  return [...payloads.flatMap((payload) => accumulator.accept(payload)), ...accumulator.finish()]
}
const callsOf = (chunks: readonly ModelChunk[]) => chunks.filter((chunk) => chunk.type === 'tool_call')

describe('CompletionAccumulator: tool-call shapes of real servers', () => {
  it('keeps a name that a later delta repeats together with the id (OpenRouter, kimi-k2 via Novita)', () => {
    const chunks = run([
      call({ index: 0, id: 'call_k2', type: 'function', function: { name: 'llm_version', arguments: '' } }),
      call({
        index: 0,
        id: 'call_k2',
        type: 'function',
        function: { name: 'llm_version', arguments: '{"a":' },
      }),
      call({ index: 0, id: 'call_k2', function: { name: 'llm_version', arguments: '1}' } }),
      choice({}, 'tool_calls'),
    ])
    expect(callsOf(chunks)).toEqual([
      { type: 'tool_call', callId: 'call_k2', name: 'llm_version', input: { a: 1 } },
    ])
  })

  it('keeps a name repeated without the id, and ignores empty names and ids in later deltas', () => {
    const chunks = run([
      call({ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }),
      call({ index: 0, id: '', type: 'function', function: { name: '', arguments: '{"path"' } }),
      call({ index: 0, function: { name: 'read_file', arguments: ':"a"}' } }),
      choice({}, 'tool_calls'),
    ])
    expect(callsOf(chunks)).toEqual([
      { type: 'tool_call', callId: 'call_1', name: 'read_file', input: { path: 'a' } },
    ])
  })

  it('continues by id when the index is missing, and takes several calls from one delta', () => {
    const chunks = run([
      choice({
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"n":' } },
          { id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"n":' } },
        ],
      }),
      choice({
        tool_calls: [
          { id: 'call_b', function: { arguments: '2}' } },
          { id: 'call_a', function: { arguments: '1}' } },
        ],
      }),
      choice({}, 'tool_calls'),
    ])
    expect(callsOf(chunks)).toEqual([
      { type: 'tool_call', callId: 'call_a', name: 'a', input: { n: 1 } },
      { type: 'tool_call', callId: 'call_b', name: 'b', input: { n: 2 } },
    ])
  })

  it('keeps two whole calls that share one index but not their ids apart (Gemini-style)', () => {
    const chunks = run([
      call({ index: 0, id: 'call_1', function: { name: 'a', arguments: '{}' } }),
      call({ index: 0, id: 'call_2', function: { name: 'b', arguments: '{"x":1}' } }),
      choice({}, 'tool_calls'),
    ])
    expect(callsOf(chunks).map(({ callId, name, input }) => ({ callId, name, input }))).toEqual([
      { callId: 'call_1', name: 'a', input: {} },
      { callId: 'call_2', name: 'b', input: { x: 1 } },
    ])
  })

  it('sends the id only in the first delta and arguments as "" then in pieces (OpenAI)', () => {
    const chunks = run([
      choice({ role: 'assistant', content: null }),
      call({ index: 0, id: 'call_o', type: 'function', function: { name: 'grep', arguments: '' } }),
      ...['{"', 'pattern', '":"', 'x', '"}'].map((piece) =>
        call({ index: 0, function: { arguments: piece } }),
      ),
      choice({}, 'tool_calls'),
      { id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } },
    ])
    expect(chunks).toEqual([
      { type: 'tool_call', callId: 'call_o', name: 'grep', input: { pattern: 'x' } },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 4 } },
      { type: 'stop', reason: 'tool_calls' },
    ])
  })
})

describe('CompletionAccumulator: other shapes', () => {
  it("streams nothing for Azure's content-filter chunks with empty choices or an empty delta", () => {
    const chunks = run([
      { id: '', object: '', model: '', choices: [], prompt_filter_results: [{ prompt_index: 0 }] },
      {
        choices: [
          { index: 0, delta: {}, finish_reason: null, content_filter_results: { hate: { filtered: false } } },
        ],
      },
      choice({ content: 'Hi' }),
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop', content_filter_results: {} }] },
    ])
    expect(chunks).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'stop', reason: 'end_turn' },
    ])
  })

  it('keeps the content of the chunk that carries finish_reason', () => {
    const accumulator = new CompletionAccumulator()
    expect(accumulator.accept(choice({ content: 'last words' }, 'stop'))).toEqual([
      { type: 'text', text: 'last words' },
    ])
    expect(accumulator.finished).toBe(true)
  })

  it('shows a thought once when a delta carries it as both reasoning and reasoning_content', () => {
    expect(
      run([
        choice({ reasoning: 'think', reasoning_content: 'think' }),
        choice({ reasoning: ' more' }),
        choice({ content: 'ok', reasoning: '', reasoning_content: '' }, 'stop'),
      ]),
    ).toEqual([
      { type: 'thought', text: 'think' },
      { type: 'thought', text: ' more' },
      { type: 'text', text: 'ok' },
      { type: 'stop', reason: 'end_turn' },
    ])
  })

  it('reports finish_reason "error" (OpenRouter) as a failure with the error it came with, if any', () => {
    const bare = new CompletionAccumulator()
    expect(bare.accept(choice({ content: 'par' }, 'error'))).toEqual([{ type: 'text', text: 'par' }])
    expect(bare.failure).toBe('')
    const said = new CompletionAccumulator()
    said.accept({
      ...choice({ content: '' }, 'error'),
      error: { code: 502, message: 'Provider returned error' },
    })
    expect(said.failure).toBe('Provider returned error')
  })
})

describe('CompletionAccumulator: limits', () => {
  const limits = { maxEventChars: 1000, maxAnswerChars: 100, maxToolArgumentChars: 40 }

  it('throws past the answer limit before returning the payload that crossed it', () => {
    const accumulator = new CompletionAccumulator(undefined, limits)
    expect(accumulator.accept(choice({ content: 'x'.repeat(60) }))).toHaveLength(1)
    expect(() => accumulator.accept(choice({ reasoning: 'y'.repeat(41) }))).toThrow(
      expect.objectContaining({ kind: 'answer', limit: 100 }),
    )
  })

  it('throws past the limit of one tool argument, streamed or as a value, and counts arguments in the answer', () => {
    const roomy = { ...limits, maxAnswerChars: 1000 }
    const streamed = new CompletionAccumulator(undefined, roomy)
    streamed.accept(call({ index: 0, id: 'a', function: { name: 'f', arguments: 'z'.repeat(40) } }))
    expect(() => streamed.accept(call({ index: 0, function: { arguments: 'z' } }))).toThrow(StreamLimitError)
    const valued = new CompletionAccumulator(undefined, roomy)
    expect(() =>
      valued.accept(call({ index: 0, function: { name: 'f', arguments: { k: 'v'.repeat(40) } } })),
    ).toThrow(expect.objectContaining({ kind: 'tool argument', limit: 40 }))
    const empty = new CompletionAccumulator(undefined, roomy)
    for (let index = 0; index < 10; index++) empty.accept(call({ index }))
    expect(() => empty.accept(call({ index: 10 }))).toThrow(expect.objectContaining({ kind: 'answer' }))
    const many = new CompletionAccumulator(undefined, { ...limits, maxAnswerChars: 400 })
    for (let index = 0; index < 3; index++)
      many.accept(call({ index, function: { arguments: 'a'.repeat(30) } }))
    expect(() => many.accept(call({ index: 3, function: { arguments: 'a'.repeat(30) } }))).toThrow(
      expect.objectContaining({ kind: 'answer' }),
    )
  })
})
