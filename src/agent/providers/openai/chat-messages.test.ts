import { describe, expect, it } from 'vitest'
import type { ContentBlock, ModelMessage } from '../../../session/index.js'
import { contentToText } from '../../shared/content-text.js'
import { toChatMessages, toChatTools } from './chat-messages.js'

describe('toChatMessages', () => {
  it('converts a history with context notes, tool calls and results', () => {
    const history: ModelMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Read a.txt and b.txt' }] },
      {
        role: 'assistant',
        content: '',
        thought: 'I should read both files',
        toolCalls: [
          { id: 'call_a', name: 'read_text_file', input: { path: 'a.txt' } },
          { id: 'call_b', name: 'read_text_file', input: { path: 'b.txt', line: 2 } },
        ],
      },
      { role: 'tool', callId: 'call_a', name: 'read_text_file', content: 'alpha', isError: false },
      { role: 'tool', callId: 'call_b', name: 'read_text_file', content: 'no such file', isError: true },
      { role: 'assistant', content: 'Done.', thought: 'easy', toolCalls: [] },
      { role: 'system', content: 'note between turns' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      {
        role: 'assistant',
        content: 'Writing.',
        toolCalls: [{ id: 'call_c', name: 'w', input: { n: [1, 2] } }],
      },
      { role: 'tool', callId: 'call_c', name: 'w', content: { ok: true, bytes: 3 }, isError: false },
      { role: 'assistant', content: '', thought: 'only a thought', toolCalls: [] },
    ]
    expect(toChatMessages(history)).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Read a.txt and b.txt' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I should read both files',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'read_text_file', arguments: '{"path":"a.txt"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'read_text_file', arguments: '{"path":"b.txt","line":2}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Error: no such file' },
      { role: 'assistant', content: 'Done.', reasoning_content: 'easy' },
      { role: 'system', content: 'note between turns' },
      { role: 'user', content: 'Thanks' },
      {
        role: 'assistant',
        content: 'Writing.',
        tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'w', arguments: '{"n":[1,2]}' } }],
      },
      { role: 'tool', tool_call_id: 'call_c', content: '{"ok":true,"bytes":3}' },
    ])
  })

  it('sends thoughts back only inside turns that called a tool (DeepSeek thinking mode)', () => {
    const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }]
    const out = toChatMessages([
      { role: 'user', content: text('plain') },
      { role: 'assistant', content: 'answer', thought: 'plain thought', toolCalls: [] },
      { role: 'user', content: text('use a tool') },
      { role: 'assistant', content: '', thought: 'call it', toolCalls: [{ id: 'c', name: 't', input: {} }] },
      { role: 'tool', callId: 'c', name: 't', content: 'ok', isError: false },
      { role: 'assistant', content: 'done', thought: 'wrap up', toolCalls: [] },
      { role: 'user', content: text('thanks') },
      { role: 'assistant', content: 'bye', thought: 'after', toolCalls: [] },
    ])
    expect(out.filter((m) => m.role === 'assistant').map((m) => m.reasoning_content)).toEqual([
      undefined,
      'call it',
      'wrap up',
      undefined,
    ])
  })

  it('never sends thoughts back from turns without tool calls', () => {
    const out = JSON.stringify(
      toChatMessages([{ role: 'assistant', content: 'x', thought: 'SECRET-THOUGHT', toolCalls: [] }]),
    )
    expect(out).not.toContain('SECRET-THOUGHT')
    expect(out).not.toContain('reasoning')
  })

  it('renders a user message of several blocks as one text, as the agent renders prompt content', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'Look at' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
      {
        type: 'resource',
        resource: { uri: 'file:///w/b.ts', text: 'export const B = 1', mimeType: 'text/x-ts' },
      },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]
    const [message] = toChatMessages([{ role: 'user', content: blocks }])
    expect(message).toEqual({ role: 'user', content: contentToText(blocks) })
    expect(message?.content).toContain('Look at')
    expect(message?.content).toContain('file:///w/a.ts')
    expect(message?.content).toContain('export const B = 1')
    expect(message?.content).not.toContain('AAAA')
  })

  it('sends images as image_url parts, between the text around them, when the model takes images', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'What is in' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'and here?' },
      { type: 'image', data: 'BBBB', mimeType: 'image/jpeg' },
    ]
    expect(toChatMessages([{ role: 'user', content: blocks }], { images: true })).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'text', text: 'and here?' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } },
        ],
      },
    ])
    const textOnly = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'plain' }] }]
    expect(toChatMessages(textOnly, { images: true })).toEqual([{ role: 'user', content: 'plain' }])
  })
})

describe('toChatTools', () => {
  it('wraps specs as functions and is undefined when there are none', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
    expect(
      toChatTools([{ name: 'read_text_file', description: 'Reads a file', inputSchema: schema }]),
    ).toEqual([
      {
        type: 'function',
        function: { name: 'read_text_file', description: 'Reads a file', parameters: schema },
      },
    ])
    expect(toChatTools([])).toBeUndefined()
  })
})
