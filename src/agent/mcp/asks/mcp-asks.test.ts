import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionMode } from '../../config/permissions.js'
import type { ClientBridge, ElicitationRequest, PermissionRequest } from '../../types.js'
import {
  type AskingCall,
  AskingCalls,
  answerAsks,
  type McpSampler,
  mcpClientCapabilities,
} from './mcp-asks.js'
import { DEFAULT_SAMPLING_PER_TURN, SamplingBounds } from './sampling-bounds.js'

const closing: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})

/** An SDK server linked in memory to our client with `answerAsks` on it; the server side is returned. */
async function linked(modes: { form: boolean; url: boolean } | undefined, sampler?: McpSampler) {
  const calls = new AskingCalls()
  const client = new Client({ name: 'dsh-acp', version: '0' }, { capabilities: mcpClientCapabilities(modes) })
  const bounds = new SamplingBounds(DEFAULT_SAMPLING_PER_TURN, () => {})
  answerAsks(client, { server: 'srv', calls, modes, sampling: sampler && { sampler, bounds } })
  const server = new Server({ name: 'srv', version: '0' }, { capabilities: {} })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await Promise.all([client.connect(a), server.connect(b)])
  closing.push(() => client.close())
  return { server, calls }
}

function call(client: ClientBridge, signal = new AbortController().signal): AskingCall {
  return {
    sessionId: 's1',
    callId: 'call_1',
    turn: 1,
    tool: 'mcp__srv__t',
    title: 'srv: t',
    kind: 'other',
    input: {},
    client,
    signal,
  }
}

const FORM = {
  mode: 'form',
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
} as const

const ELICIT = { method: 'elicitation/create', params: FORM }

function sampler(mode: SessionMode, standing: Record<string, boolean> = {}) {
  const recorded: unknown[] = []
  const completed: unknown[] = []
  const value: McpSampler = {
    permissions: () => ({ mode: () => mode, standing: () => new Map(Object.entries(standing)) }),
    recordAlways: (...args) => void recorded.push(args),
    complete: async (_sessionId, messages, limits) => {
      completed.push({ messages, limits })
      return { text: 'ok', model: 'm', stopReason: 'endTurn' }
    },
  }
  return { value, recorded, completed }
}

const SAMPLE = {
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 9 },
} as const

describe('MCP servers that ask', () => {
  it('advertises elicitation only in the modes the editor shows, and sampling', () => {
    expect(mcpClientCapabilities(undefined)).toEqual({ roots: { listChanged: false }, sampling: {} })
    expect(mcpClientCapabilities({ form: true, url: false })).toEqual({
      roots: { listChanged: false },
      elicitation: { form: {} },
      sampling: {},
    })
  })

  it("forwards a question during the server's one call, naming the server, and returns the answer", async () => {
    const asked: ElicitationRequest[] = []
    const editor: ClientBridge = {
      elicitation: {
        form: true,
        url: false,
        complete: () => {},
        create: async (request) => {
          asked.push(request)
          return { action: 'accept', content: { name: 'Ada' } }
        },
      },
    }
    const { server, calls } = await linked({ form: true, url: false })
    const done = calls.track(call(editor))
    expect(await server.request(ELICIT as never, ElicitResultSchema)).toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    })
    done()
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'The MCP server "srv" asks: Name?',
        toolCallId: 'call_1',
        requestedSchema: FORM.requestedSchema,
      },
    ])
    // outside any call, nobody can be named as asking: declined without asking
    expect(await server.request(ELICIT as never, ElicitResultSchema)).toEqual({ action: 'decline' })
    expect(asked).toHaveLength(1)
  })

  it('answers cancel when the turn is cancelled while the user is asked', async () => {
    const turn = new AbortController()
    const editor: ClientBridge = {
      elicitation: {
        form: true,
        url: false,
        complete: () => {},
        create: (_request, signal) =>
          new Promise((_, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason), { once: true })
            turn.abort()
          }),
      },
    }
    const { server, calls } = await linked({ form: true, url: false })
    calls.track(call(editor, turn.signal))
    expect(await server.request(ELICIT as never, ElicitResultSchema)).toEqual({ action: 'cancel' })
  })

  it('refuses to guess which of several calls in flight a request belongs to', async () => {
    const { server, calls } = await linked(undefined, sampler('ask').value)
    calls.track(call({}))
    calls.track(call({}))
    await expect(server.request(SAMPLE as never, CreateMessageResultSchema)).rejects.toMatchObject({
      code: -1,
      message: expect.stringContaining('several of its tool calls ran'),
    })
  })

  it('samples after the user allows it, recording an "always" answer; a standing answer decides alone', async () => {
    const permissions: PermissionRequest[] = []
    const editor: ClientBridge = {
      requestPermission: async (request) => {
        permissions.push(request)
        return 'allow_always'
      },
    }
    const allowing = sampler('accept-edits')
    const { server, calls } = await linked(undefined, allowing.value)
    calls.track(call(editor))
    expect(await server.request(SAMPLE as never, CreateMessageResultSchema)).toMatchObject({
      role: 'assistant',
      content: { type: 'text', text: 'ok' },
      model: 'm',
    })
    expect(permissions).toHaveLength(1)
    expect(allowing.recorded).toEqual([['s1', 'mcp__srv__t', 'mcp-sampling:srv', true]])
    expect(allowing.completed).toEqual([
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], limits: { maxTokens: 9 } },
    ])

    const refusing = sampler('ask', { 'mcp-sampling:srv': false })
    const second = await linked(undefined, refusing.value)
    second.calls.track(call(editor))
    await expect(second.server.request(SAMPLE as never, CreateMessageResultSchema)).rejects.toMatchObject({
      code: -1,
    })
    expect(permissions).toHaveLength(1)
    expect(refusing.completed).toEqual([])
  })

  it('refuses sampling in read-only mode without asking', async () => {
    const asked: PermissionRequest[] = []
    const { server, calls } = await linked(undefined, sampler('read-only').value)
    const editor: ClientBridge = {
      requestPermission: async (request) => {
        asked.push(request)
        return 'allow_once'
      },
    }
    calls.track(call(editor))
    await expect(server.request(SAMPLE as never, CreateMessageResultSchema)).rejects.toMatchObject({
      code: -1,
      message: expect.stringContaining('Sampling refused: the session is read-only'),
    })
    expect(asked).toEqual([])
  })
})
