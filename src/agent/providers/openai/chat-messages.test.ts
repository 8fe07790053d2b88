import { describe, expect, it } from 'vitest'
import type { ModelMessage } from '../../../session/index.js'
import { contentBlockText, toChatMessages, toChatTools } from './chat-messages.js'

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
      { role: 'assistant', content: 'Done.' },
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

  it('never sends thoughts back', () => {
    const out = JSON.stringify(
      toChatMessages([{ role: 'assistant', content: 'x', thought: 'SECRET-THOUGHT', toolCalls: [] }]),
    )
    expect(out).not.toContain('SECRET-THOUGHT')
    expect(out).not.toContain('reasoning')
  })

  it('joins a user message of several blocks with blank lines', () => {
    const [message] = toChatMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at' },
          { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
          { type: 'resource', resource: { uri: 'file:///w/b.ts', text: 'export {}', mimeType: 'text/x-ts' } },
        ],
      },
    ])
    expect(message).toEqual({
      role: 'user',
      content:
        'Look at\n\n[resource: a.ts](file:///w/a.ts)\n\n<resource uri="file:///w/b.ts">\nexport {}\n</resource>',
    })
  })
})

describe('contentBlockText', () => {
  it('mentions what it cannot pass on', () => {
    expect(contentBlockText({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toBe(
      '[image content omitted: image/png]',
    )
    expect(contentBlockText({ type: 'resource', resource: { uri: 'file:///x.bin', blob: 'AAAA' } })).toBe(
      '[binary resource omitted: file:///x.bin]',
    )
    expect(contentBlockText({ type: 'resource_link', uri: 'https://e.x/d', name: 'd', title: 'The D' })).toBe(
      '[resource: The D](https://e.x/d)',
    )
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
