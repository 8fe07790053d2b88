import { getEventListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../../../test/support/acp-schema.js'
import { OutboundRequests } from '../../jsonrpc/outbound.js'
import {
  ACP_CLIENT_METHODS,
  type AcpClientMethods,
  type AcpClientRequestName,
} from '../schema/acp-client-methods.gen.js'
import { type ClientRequestSender, ClientResponseError, sendClientRequest } from './client-requests.js'

/** A sender that records what it was asked and answers with `result`. */
function answering(result: unknown) {
  const sent: { method: string; params: unknown }[] = []
  const send: ClientRequestSender = async (method, params) => {
    sent.push({ method, params })
    return result
  }
  return { sent, send }
}

/** Valid params of each client request (what is sent does not change how the result is checked). */
const PARAMS: { readonly [M in AcpClientRequestName]: AcpClientMethods[M]['params'] } = {
  'fs/read_text_file': { sessionId: 's', path: '/a' },
  'fs/write_text_file': { sessionId: 's', path: '/a', content: 'x' },
  'session/request_permission': { sessionId: 's', toolCall: { toolCallId: 'c' }, options: [] },
  'terminal/create': { sessionId: 's', command: 'ls' },
  'terminal/output': { sessionId: 's', terminalId: 't' },
  'terminal/wait_for_exit': { sessionId: 's', terminalId: 't' },
  'terminal/release': { sessionId: 's', terminalId: 't' },
  'terminal/kill': { sessionId: 's', terminalId: 't' },
  'elicitation/create': {
    mode: 'form',
    sessionId: 's',
    message: 'name?',
    requestedSchema: { type: 'object', properties: {} },
  },
  'mcp/message': { serverId: 'm', requestId: 'r', method: 'ping' },
}

/** A valid result of each client request (params are not checked here: any will do). */
const RESULTS: Record<AcpClientRequestName, unknown[]> = {
  'fs/read_text_file': [{ content: 'hi\n' }, { content: '', _meta: { a: 1 } }],
  'fs/write_text_file': [{}, { _meta: null }],
  'session/request_permission': [
    { outcome: { outcome: 'cancelled' } },
    { outcome: { outcome: 'selected', optionId: 'allow_once' } },
  ],
  'terminal/create': [{ terminalId: 't1' }],
  'terminal/output': [
    { output: 'x', truncated: false },
    { output: '', truncated: true, exitStatus: { exitCode: 1, signal: null } },
    { output: '', truncated: true, exitStatus: null },
  ],
  'terminal/wait_for_exit': [{ exitCode: 0, signal: null }, { signal: 'SIGTERM' }],
  'terminal/release': [{}],
  'terminal/kill': [{}],
  'elicitation/create': [{ action: 'cancel' }, { action: 'accept', content: { name: 'x' } }],
  'mcp/message': [{}],
}

const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, 2 ** 32, 'x', '', true, [], {}, { outcome: 'selected' }]

/** Each sample with one field removed or replaced, at every depth. */
function* mutations(value: unknown): Generator<unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return
  for (const [key, child] of Object.entries(value)) {
    const { [key]: _, ...rest } = value as Record<string, unknown>
    yield rest
    for (const replacement of REPLACEMENTS) yield { ...value, [key]: replacement }
    for (const deeper of mutations(child)) yield { ...value, [key]: deeper }
  }
}

async function verdict(method: AcpClientRequestName, result: unknown): Promise<boolean> {
  const { send } = answering(result)
  try {
    await sendClientRequest(send, method, PARAMS[method])
    return true
  } catch (error) {
    expect(error).toBeInstanceOf(ClientResponseError)
    expect(error).toMatchObject({
      method,
      field: expect.any(String),
      message: expect.stringMatching(`^the editor answered ${method} with an invalid response: `),
    })
    return false
  }
}

describe('client responses', () => {
  it('the table lists every client-side method of the installed schema, requests with a response', () => {
    const require = createRequire(import.meta.url)
    const read = (file: string) =>
      JSON.parse(readFileSync(require.resolve(`@agentclientprotocol/sdk/schema/v1/${file}`), 'utf8')) as {
        $defs: Record<string, { 'x-side'?: string; 'x-method'?: string }>
      }
    const expected = new Map<string, { result: string | null; notification: boolean }>()
    for (const schema of [read('schema.json'), read('schema.unstable.json')]) {
      for (const [name, def] of Object.entries(schema.$defs)) {
        if (def['x-side'] !== 'client' || def['x-method'] === undefined) continue
        const entry = expected.get(def['x-method']) ?? { result: null, notification: true }
        if (name.endsWith('Response')) entry.result = name
        if (name.endsWith('Request')) entry.notification = false
        expected.set(def['x-method'], entry)
      }
    }
    const table = Object.entries(ACP_CLIENT_METHODS).map(([method, e]) => [method, e.result, e.notification])
    expect(table.sort()).toEqual([...expected].map(([m, e]) => [m, e.result, e.notification]).sort())
  })

  it.each(Object.entries(RESULTS))(
    '%s: agrees with the official schema on samples and their mutations',
    async (name, samples) => {
      const method = name as AcpClientRequestName
      const definition = ACP_CLIENT_METHODS[method].result ?? ''
      let rejected = 0
      for (const sample of samples) {
        for (const result of [sample, ...mutations(sample), ...REPLACEMENTS]) {
          const expected = validateAcpDefinition(definition, result ?? {}).length === 0
          const valid = await verdict(method, result)
          expect([result, valid]).toEqual([result, expected])
          if (!valid) rejected++
        }
      }
      expect(rejected).toBeGreaterThan(0)
    },
  )

  it('passes a valid result through as it came; an absent or null one counts as {}', async () => {
    const result = { content: 'a', _meta: { x: 1 } }
    expect(
      await sendClientRequest(answering(result).send, 'fs/read_text_file', { sessionId: 's', path: '/a' }),
    ).toBe(result)
    for (const empty of [null, undefined]) {
      expect(
        await sendClientRequest(answering(empty).send, 'fs/write_text_file', {
          sessionId: 's',
          path: '/a',
          content: '',
        }),
      ).toEqual({})
    }
  })

  it('names the offending field', async () => {
    const cases: [AcpClientRequestName, unknown, string][] = [
      ['fs/read_text_file', { content: 3 }, 'content must be of type string'],
      ['fs/read_text_file', null, 'content is required'],
      ['fs/read_text_file', 'text', 'result must be of type object'],
      ['terminal/create', {}, 'terminalId is required'],
      ['terminal/output', { output: '' }, 'truncated is required'],
      ['terminal/wait_for_exit', { exitCode: -1 }, 'exitCode must be >= 0'],
      [
        'session/request_permission',
        { outcome: { outcome: 'dismissed' } },
        'outcome.outcome "dismissed" is not one of the types ACP defines here',
      ],
      ['session/request_permission', { outcome: { outcome: 'selected' } }, 'outcome.optionId is required'],
    ]
    for (const [method, result, problem] of cases) {
      await expect(sendClientRequest(answering(result).send, method, PARAMS[method])).rejects.toThrow(
        `the editor answered ${method} with an invalid response: ${problem}`,
      )
    }
  })

  it('an error the client answered with is passed on unchanged', async () => {
    const failure = new Error('no such file')
    const send: ClientRequestSender = () => Promise.reject(failure)
    await expect(sendClientRequest(send, 'fs/read_text_file', { sessionId: 's', path: '/a' })).rejects.toBe(
      failure,
    )
  })
})

describe('client requests and abort, through the connection’s outbound requests', () => {
  const params = { sessionId: 's', path: '/a' }

  /** A sender on the JSON-RPC layer's outbound requests, writing into `sent`. */
  function outbound() {
    const sent: unknown[] = []
    const requests = new OutboundRequests((message) => {
      sent.push(message)
      return undefined
    })
    const send: ClientRequestSender = (method, params, signal) => requests.request(method, params, signal)
    return { sent, send, requests }
  }

  it('sends nothing when the signal has already aborted, and rejects with its reason', async () => {
    const { sent, send } = outbound()
    const reason = new Error('stop')
    await expect(
      sendClientRequest(send, 'fs/read_text_file', params, AbortSignal.abort(reason)),
    ).rejects.toBe(reason)
    expect(sent).toEqual([])
  })

  it('rejects with the reason as soon as the signal aborts, without waiting for the client', async () => {
    const { sent, send } = outbound()
    const controller = new AbortController()
    const pending = sendClientRequest(send, 'fs/read_text_file', params, controller.signal)
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 0, method: 'fs/read_text_file', params }])
    const reason = new Error('cancelled')
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
    expect(getEventListeners(controller.signal, 'abort')).toEqual([])
  })

  it('an answer before the abort is kept, and stops listening to the signal', async () => {
    const { send, requests } = outbound()
    const controller = new AbortController()
    const pending = sendClientRequest(send, 'fs/read_text_file', params, controller.signal)
    requests.settle({ jsonrpc: '2.0', id: 0, result: { content: 'x' } })
    const response = await pending
    expect(response.content).toBe('x')
    expect(getEventListeners(controller.signal, 'abort')).toEqual([])
    controller.abort()
  })
})
