import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgent } from '../../../test/support/turn-harness.js'
import type { ModelMessage } from '../../session/index.js'
import { AgentError, AgentErrorCode } from '../errors.js'
import type { ModelChunk, ModelProvider, ModelRequest } from '../types.js'
import { createProvider, providerNames } from './index.js'
import { createScriptProvider, scriptPosition } from './script.js'
import { parseModelScript } from './script-format.js'

const text = (t: string) => ({ type: 'text' as const, text: t })
const user = (t: string): ModelMessage => ({ role: 'user', content: [text(t)] })
const assistant = (t: string): ModelMessage => ({ role: 'assistant', content: t, toolCalls: [] })

function requestWith(messages: ModelMessage[]): ModelRequest {
  return { sessionId: 'ses_1', cwd: '/', messages, tools: [] }
}

async function collect(
  provider: ModelProvider,
  messages: ModelMessage[],
  signal = new AbortController().signal,
) {
  const chunks: ModelChunk[] = []
  for await (const chunk of provider.stream(requestWith(messages), signal)) chunks.push(chunk)
  return chunks
}

describe('echo', () => {
  it('streams a thought, then the answer in several chunks, and never calls tools', async () => {
    const chunks = await collect(createProvider('echo'), [user('hello'), assistant('...'), user('and you?')])
    expect(chunks[0]).toMatchObject({ type: 'thought', text: 'I count 2 user messages in my context.' })
    const texts = chunks.filter((c) => c.type === 'text')
    expect(texts.length).toBeGreaterThan(1)
    expect(texts.map((c) => (c as { text: string }).text).join('')).toBe(
      'I remember 2 messages from you in this session:\n1. "hello"\n2. "and you?"',
    )
    expect(chunks.some((c) => c.type === 'tool_call')).toBe(false)
  })

  it('renders embedded resources as text and says so in its prompt capabilities', async () => {
    const provider = createProvider('')
    expect(provider.name).toBe('echo')
    expect(provider.promptCapabilities).toEqual({ image: false, audio: false, embeddedContext: true })
    const resource = { type: 'resource' as const, resource: { uri: 'file:///a.md', text: 'notes' } }
    const chunks = await collect(provider, [{ role: 'user', content: [text('see'), resource] }])
    const answer = chunks.map((c) => (c.type === 'text' ? c.text : '')).join('')
    expect(answer).toContain('notes')
    expect(answer).toContain('file:///a.md')
  })
})

describe('script', () => {
  const script = parseModelScript({
    turns: [
      [[{ text: 'turn 1' }]],
      [
        [{ toolCall: { name: 't', input: 1, result: 'r' } }, { stop: 'tool_calls' }, { text: 'never' }],
        [{ thought: 'hmm' }, { text: 'step 2' }],
      ],
    ],
  })

  it('picks the turn by user messages and the step by assistant messages since the last one', async () => {
    expect(scriptPosition([user('a'), assistant('x'), user('b'), assistant('y')])).toEqual({
      turn: 1,
      step: 1,
    })
    const provider = createScriptProvider(script)
    expect(await collect(provider, [user('a')])).toEqual([text('turn 1')])
    expect(await collect(provider, [user('a'), assistant('turn 1'), user('b')])).toEqual([
      { type: 'tool_call', callId: 'call_2_1_1', name: 't', input: 1, result: { output: 'r' } },
      { type: 'stop', reason: 'tool_calls' },
    ])
    const step2 = await collect(provider, [user('a'), assistant('turn 1'), user('b'), assistant('')])
    expect(step2).toEqual([
      { type: 'thought', text: 'hmm' },
      { type: 'text', text: 'step 2' },
    ])
  })

  it('fails a request it has no turn for, naming it', async () => {
    const provider = createScriptProvider(script)
    await expect(collect(provider, [user('1'), user('2'), user('3')])).rejects.toThrow('no turn 3 step 1')
  })

  it('reports usage as a server does: cached and reasoning tokens when given, checked', async () => {
    const usage = { inputTokens: 10, outputTokens: 4, cachedInputTokens: 6, reasoningTokens: 2 }
    const provider = createScriptProvider(parseModelScript([[[{ usage, contextWindow: 100 }]]]))
    expect(await collect(provider, [user('1')])).toEqual([{ type: 'usage', usage, contextWindow: 100 }])
    expect(() =>
      parseModelScript([[[{ usage: { inputTokens: 1, outputTokens: 1, reasoningTokens: -1 } }]]]),
    ).toThrow('usage.reasoningTokens must be a number >= 0')
  })

  it('ends a delay as soon as the signal aborts', async () => {
    const provider = createScriptProvider(parseModelScript([[[{ delayMs: 600_000 }, { text: 'late' }]]]))
    const controller = new AbortController()
    const pending = collect(provider, [user('a')], controller.signal)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it.each([
    [{}, 'expected { "turns"'],
    [[{}], 'turns[0]'],
    [[[[{ text: 1 }]]], 'text must be a string'],
    [[[[{ stop: 'bored' }]]], 'unknown stop reason'],
    [[[[{ toolCall: { input: {} } }]]], 'toolCall needs a name'],
    [[[[{ delayMs: -1 }]]], 'delayMs'],
    [[[[{ dance: true }]]], 'unknown item'],
  ])('rejects a malformed script %j', (value, says) => {
    expect(() => parseModelScript(value)).toThrow(says)
    expect(() => parseModelScript(value)).toThrow(AgentError)
  })
})

describe('createProvider', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dsh-script-'))
    await writeFile(path.join(dir, 'demo.json'), JSON.stringify({ turns: [[[{ text: 'scripted' }]]] }))
    await writeFile(path.join(dir, 'bad.json'), '{ not json')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('loads script:<path> relative to options.cwd', async () => {
    const provider = createProvider('script:demo.json', { cwd: dir })
    expect(provider.name).toBe('script')
    expect(await collect(provider, [user('x')])).toEqual([text('scripted')])
  })

  it('explains unknown names and bad script files', () => {
    expect(providerNames()).toEqual(expect.arrayContaining(['echo', 'script']))
    expect(() => createProvider('gpt-9')).toThrow(
      expect.objectContaining({ code: AgentErrorCode.UNKNOWN_PROVIDER }),
    )
    expect(() => createProvider('script:bad.json', { cwd: dir })).toThrow('is not JSON')
    expect(() => createProvider('script:missing.json', { cwd: dir })).toThrow('cannot read script')
  })

  it('the agent advertises what its provider declares, else the ACP baseline', async () => {
    const bare: ModelProvider = {
      name: 'bare',
      stream: () => createProvider('echo').stream(requestWith([]), new AbortController().signal),
    }
    const ctx = await startAgent({ provider: bare })
    expect(ctx.agent.promptCapabilities).toEqual({ image: false, audio: false, embeddedContext: false })
    await ctx.stop()
    const echoCtx = await startAgent({ provider: createProvider('echo') })
    expect(echoCtx.agent.promptCapabilities.embeddedContext).toBe(true)
    await echoCtx.stop()
  })
})
