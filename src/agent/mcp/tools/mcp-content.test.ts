import { afterEach, describe, expect, it, vi } from 'vitest'
import { toChatMessages } from '../../providers/openai/chat-messages.js'
import { cappedFetch } from '../mcp-limits.js'
import { toolResultOf } from './mcp-content.js'
import { ProgressRelay, progressText } from './mcp-progress.js'

const PNG = 'iVBORw0KGgo='

describe('MCP tool results', () => {
  it('text-only results are their text; other parts become ACP content blocks and placeholders', () => {
    expect(toolResultOf({ content: [{ type: 'text', text: 'bad' }], isError: true })).toEqual({
      output: 'bad',
      isError: true,
    })
    expect(toolResultOf({ content: [], structuredContent: { n: 1 } })).toEqual({ output: '{"n":1}' })
    const result = toolResultOf({
      content: [
        { type: 'text', text: 'a', annotations: { priority: 1 } },
        { type: 'image', mimeType: 'image/png', data: PNG, _meta: { x: 1 } },
        { type: 'resource_link', uri: 'file:///x.txt', name: 'x.txt', mimeType: 'text/plain', size: 3 },
        { type: 'resource', resource: { uri: 'file:///y', text: 'body' } },
        { type: 'resource', resource: { uri: 'file:///z', blob: 'AAAA', mimeType: 'application/zip' } },
        { type: 'audio', mimeType: 'audio/wav', data: 'UklG' },
      ],
    })
    expect(result.output).toBe(
      'a\n[image image/png]\n[resource_link x.txt file:///x.txt]\nbody\n[resource file:///z]\n[audio audio/wav]',
    )
    expect(result.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'a' } },
      { type: 'content', content: { type: 'image', mimeType: 'image/png', data: PNG } },
      {
        type: 'content',
        content: {
          type: 'resource_link',
          uri: 'file:///x.txt',
          name: 'x.txt',
          mimeType: 'text/plain',
          size: 3,
        },
      },
      { type: 'content', content: { type: 'resource', resource: { uri: 'file:///y', text: 'body' } } },
      {
        type: 'content',
        content: {
          type: 'resource',
          resource: { uri: 'file:///z', blob: 'AAAA', mimeType: 'application/zip' },
        },
      },
      { type: 'content', content: { type: 'audio', mimeType: 'audio/wav', data: 'UklG' } },
    ])
  })

  it("hides the server's secrets in every string of the result, a bearer token's token too", () => {
    const result = toolResultOf(
      {
        content: [
          { type: 'text', text: 'key=sk-secret-1234 auth=tok-abcdefgh' },
          { type: 'resource_link', uri: 'https://h/?k=sk-secret-1234', name: 'n' },
        ],
      },
      { secrets: ['sk-secret-1234', 'Bearer tok-abcdefgh'] },
    )
    expect(JSON.stringify(result)).not.toMatch(/sk-secret-1234|tok-abcdefgh/)
    expect(result.output).toBe('key=*** auth=***\n[resource_link n https://h/?k=***]')
    expect(
      toolResultOf(
        { content: [], structuredContent: { t: 'sk-secret-1234' } },
        { secrets: ['sk-secret-1234'] },
      ),
    ).toEqual({ output: '{"t":"***"}' })
  })

  it('holds a result to the limit and says what was cut, to the model and the editor', () => {
    const result = toolResultOf(
      {
        content: [
          { type: 'text', text: 'x'.repeat(60) },
          { type: 'image', mimeType: 'image/png', data: 'A'.repeat(80) },
          { type: 'text', text: 'y'.repeat(60) },
        ],
      },
      { limit: 100 },
    )
    const note =
      '[MCP result cut: it is larger than the 100-character limit; its text was cut there and 1 of its 3 parts were left out]'
    expect(result.output).toBe(`${'x'.repeat(60)}\n${'y'.repeat(40)}\n${note}`)
    expect(result.content).toBeUndefined()
    const big = toolResultOf({ content: [], structuredContent: { s: 'z'.repeat(500) } }, { limit: 100 })
    expect(big.output).toMatch(/^\{"s":"z{94}\n\[MCP result cut/)
  })

  it('a model that takes images gets them after the step’s tool messages; one that does not, the placeholder', () => {
    const result = toolResultOf({ content: [{ type: 'image', mimeType: 'image/png', data: PNG }] })
    const messages = [
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'shot', input: {} }] },
      {
        role: 'tool' as const,
        callId: 'c1',
        name: 'shot',
        content: result.output,
        isError: false,
        images: [{ type: 'image' as const, mimeType: 'image/png', data: PNG }],
      },
    ]
    expect(toChatMessages(messages, { images: true }).slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '[image image/png]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The images of tool call c1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ])
    expect(toChatMessages(messages).slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '[image image/png]' },
    ])
  })
})

describe('MCP progress', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('words progress with and without a total', () => {
    expect(progressText({ progress: 3, total: 10, message: 'indexing' })).toBe(
      'Progress: 3 of 10 (30%): indexing',
    )
    expect(progressText({ progress: 7 })).toBe('Progress: 7')
  })

  it('sends the first at once, then at most one per interval (the newest), nothing after stop', () => {
    vi.useFakeTimers()
    const sent: string[] = []
    const relay = new ProgressRelay((text) => sent.push(text), undefined, 500)
    relay.onprogress({ progress: 1 })
    for (let i = 2; i <= 100; i++) relay.onprogress({ progress: i })
    expect(sent).toEqual(['Progress: 1'])
    vi.advanceTimersByTime(500)
    expect(sent).toEqual(['Progress: 1', 'Progress: 100'])
    relay.onprogress({ progress: 101 })
    relay.stop()
    vi.advanceTimersByTime(1000)
    expect(sent).toEqual(['Progress: 1', 'Progress: 100'])
  })
})

describe('capped fetch (streamable HTTP)', () => {
  const request = { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call' }) }
  const serve = (type: string, chunks: string[]) => async (): Promise<Response> =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
          controller.close()
        },
      }),
      { headers: { 'content-type': type } },
    )

  it('passes small events and answers whole', async () => {
    const events = ['event: message\ndata: {"a":', '1}\n\n', 'data: {"b":2}\r\n\r\n']
    const sse = await cappedFetch(100, serve('text/event-stream', events))('http://127.0.0.1/', request)
    expect(await sse.text()).toBe(events.join(''))
    const json = await cappedFetch(100, serve('application/json', ['{"x":', '1}']))(
      'http://127.0.0.1/',
      request,
    )
    expect(await json.text()).toBe('{"x":1}')
  })

  it('answers the request with an error instead of an event or a body past the limit', async () => {
    const big = ['data: {"ok":1}\n\n', `data: "${'x'.repeat(60)}`, `${'y'.repeat(60)}"\n\n`, 'data: 3\n\n']
    const sse = await cappedFetch(100, serve('text/event-stream', big))('http://127.0.0.1/', request)
    const text = await sse.text()
    expect(text.startsWith('data: {"ok":1}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":7,"error"')).toBe(
      true,
    )
    expect(text).toContain('larger than the 100-byte limit')
    expect(text).not.toContain('xxx')
    const json = await cappedFetch(10, serve('application/json', ['{"x":', '"long value"}']))(
      'http://127.0.0.1/',
      request,
    )
    expect(JSON.parse(await json.text())).toMatchObject({ id: 7, error: { code: -32000 } })
  })
})
