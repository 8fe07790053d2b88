import { describe, expect, it } from 'vitest'
import type { ModelChunk } from '../../types.js'
import { CompletionAccumulator } from './completion-accumulator.js'

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
})

function run(payloads: readonly unknown[], contextWindow?: number): ModelChunk[] {
  const accumulator = new CompletionAccumulator(contextWindow)
  return [...payloads.flatMap((payload) => accumulator.accept(payload)), ...accumulator.finish()]
}

describe('CompletionAccumulator', () => {
  it('streams text and thoughts (reasoning_content and reasoning) as they come', () => {
    expect(
      run([
        delta({ role: 'assistant', content: '' }),
        delta({ reasoning_content: 'think ' }),
        delta({ reasoning: 'more' }),
        delta({ content: 'Hel' }),
        delta({ content: 'lo' }, 'stop'),
      ]),
    ).toEqual([
      { type: 'thought', text: 'think ' },
      { type: 'thought', text: 'more' },
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'stop', reason: 'end_turn' },
    ])
  })

  it('assembles interleaved tool-call fragments by index and yields them at the end, in index order', () => {
    const chunks = run([
      delta({
        tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'wri', arguments: '' } }],
      }),
      delta({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"pa' } },
        ],
      }),
      delta({ tool_calls: [{ index: 1, function: { name: 'te', arguments: '{"path":"b","content":"é' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: 'th":"a"}' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: '"}' } }] }),
      delta({}, 'tool_calls'),
    ])
    expect(chunks).toEqual([
      { type: 'tool_call', callId: 'call_1', name: 'read', input: { path: 'a' } },
      { type: 'tool_call', callId: 'call_2', name: 'write', input: { path: 'b', content: 'é' } },
      { type: 'stop', reason: 'tool_calls' },
    ])
  })

  it('gives bad JSON arguments as {_raw}, empty arguments as {}, and object arguments as they are', () => {
    const chunks = run([
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'x', arguments: '{"oops' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'y', arguments: '' } }] }),
      delta({ tool_calls: [{ index: 2, id: 'c', function: { name: 'z', arguments: { k: 1 } } }] }),
    ])
    expect(chunks.filter((chunk) => chunk.type === 'tool_call').map((chunk) => chunk.input)).toEqual([
      { _raw: '{"oops' },
      {},
      { k: 1 },
    ])
  })

  it('handles fragments without index (by id, else continuing the last call) and generates missing ids', () => {
    const chunks = run([
      delta({ tool_calls: [{ id: 'call_x', function: { name: 'x', arguments: '{"a":' } }] }),
      delta({ tool_calls: [{ function: { arguments: '1}' } }] }),
      delta({ tool_calls: [{ id: 'call_y', function: { name: 'y', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 5, function: { name: 'nameless', arguments: '{}' } }] }),
    ])
    const calls = chunks.filter((chunk) => chunk.type === 'tool_call')
    expect(calls.slice(0, 2)).toEqual([
      { type: 'tool_call', callId: 'call_x', name: 'x', input: { a: 1 } },
      { type: 'tool_call', callId: 'call_y', name: 'y', input: {} },
    ])
    expect(calls[2]?.callId).toMatch(/^call_[0-9a-f-]{36}$/)
  })

  it('reports usage with cached and reasoning tokens and the context window, before the stop', () => {
    const chunks = run(
      [
        delta({ content: 'x' }, 'stop'),
        {
          choices: [],
          usage: {
            prompt_tokens: 100,
            completion_tokens: 20,
            prompt_tokens_details: { cached_tokens: 64 },
            completion_tokens_details: { reasoning_tokens: 12 },
          },
        },
      ],
      128_000,
    )
    expect(chunks.slice(1)).toEqual([
      {
        type: 'usage',
        usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 12 },
        contextWindow: 128_000,
      },
      { type: 'stop', reason: 'end_turn' },
    ])
    const deepseek = run([
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 8 } },
    ])
    expect(deepseek[0]).toEqual({
      type: 'usage',
      usage: { inputTokens: 9, outputTokens: 1, cachedInputTokens: 8 },
    })
  })

  it('maps finish_reason to the stop reason', () => {
    const stopOf = (finish: string | null, calls = false) =>
      run([
        ...(calls
          ? [delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'n', arguments: '{}' } }] })]
          : []),
        delta({}, finish),
      ]).at(-1)
    expect(stopOf('stop')).toEqual({ type: 'stop', reason: 'end_turn' })
    expect(stopOf('tool_calls', true)).toEqual({ type: 'stop', reason: 'tool_calls' })
    expect(stopOf('length')).toEqual({ type: 'stop', reason: 'max_tokens' })
    expect(stopOf('content_filter')).toEqual({ type: 'stop', reason: 'refusal' })
    expect(stopOf('something_new')).toEqual({ type: 'stop', reason: 'end_turn' })
    expect(stopOf('stop', true)).toEqual({ type: 'stop', reason: 'tool_calls' })
    expect(stopOf('length', true)).toEqual({ type: 'stop', reason: 'max_tokens' })
  })

  it('knows when the model finished', () => {
    const accumulator = new CompletionAccumulator()
    accumulator.accept(delta({ content: 'x' }))
    expect(accumulator.finished).toBe(false)
    accumulator.accept(delta({}, 'stop'))
    expect(accumulator.finished).toBe(true)
  })

  it('reports the message of an error payload as the failure, after what the payload streamed', () => {
    const accumulator = new CompletionAccumulator()
    expect(accumulator.failure).toBeUndefined()
    expect(
      accumulator.accept({ ...delta({ content: 'a' }), error: { message: 'out of memory', code: 500 } }),
    ).toEqual([{ type: 'text', text: 'a' }])
    expect(accumulator.failure).toBe('out of memory')
    const plain = new CompletionAccumulator()
    plain.accept({ error: 'plain' })
    expect(plain.failure).toBe('plain')
  })
})
