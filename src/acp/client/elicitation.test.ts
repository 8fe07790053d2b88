import { describe, expect, it } from 'vitest'
import type { ClientState } from '../method.js'
import { type ClientRequestSender, createClientBridge } from './client-bridge.js'
import { ClientResponseError } from './client-requests.js'
import { elicitationModes } from './elicitation.js'

const FORMS: ClientState = { protocolVersion: 1, capabilities: { elicitation: { form: {} } } }
const QUESTION = {
  mode: 'form',
  message: 'Which?',
  toolCallId: 'call_1',
  requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } },
} as const

function editor(answer: unknown) {
  const sent: { method: string; params: unknown }[] = []
  const send: ClientRequestSender = async (method, params) => {
    sent.push({ method, params })
    return answer
  }
  return { sent, send }
}

const live = () => new AbortController().signal

describe('elicitation through the client bridge', () => {
  it('reads the advertised modes: {} advertises one, omitted, null or anything else does not', () => {
    const modes = (elicitation: unknown) =>
      elicitationModes({ capabilities: { elicitation } as ClientState['capabilities'] })
    expect(modes({ form: {}, url: {} })).toEqual({ form: true, url: true })
    expect(modes({ form: {} })).toEqual({ form: true, url: false })
    expect(modes({ form: null, url: true })).toEqual({ form: false, url: false })
    expect(modes(undefined)).toEqual({ form: false, url: false })
    expect(Object.keys(createClientBridge(editor({}).send, undefined, 's1'))).not.toContain('elicitation')
  })

  it('asks on the session about the tool call, and maps accept, decline, cancel and unknown actions', async () => {
    for (const [answer, expected] of [
      [
        { action: 'accept', content: { answer: 'b' } },
        { action: 'accept', content: { answer: 'b' } },
      ],
      [{ action: 'accept' }, { action: 'accept' }],
      [{ action: 'decline' }, { action: 'decline' }],
      [{ action: 'cancel' }, { action: 'cancel' }],
      [{ action: '_snooze' }, { action: 'cancel' }],
    ] as const) {
      const client = editor(answer)
      const bridge = createClientBridge(client.send, FORMS, 's1')
      expect(await bridge.elicitation?.create(QUESTION, live())).toEqual(expected)
      expect(client.sent).toEqual([
        { method: 'elicitation/create', params: { sessionId: 's1', ...QUESTION } },
      ])
    }
  })

  it('declines a mode the client did not advertise without asking', async () => {
    const client = editor({ action: 'accept' })
    const bridge = createClientBridge(client.send, FORMS, 's1')
    const answer = await bridge.elicitation?.create(
      { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' },
      live(),
    )
    expect(answer).toEqual({ action: 'decline' })
    expect(client.sent).toEqual([])
  })

  it('shows a redirected question where permission requests go (a subagent seen through its parent)', async () => {
    const client = editor({ action: 'decline' })
    const bridge = createClientBridge(client.send, FORMS, 'parent', {
      permissionTarget: () => ({
        sessionId: 'parent',
        toolCall: { toolCallId: 'delegate_1', title: 'Subagent', kind: 'other' },
      }),
    })
    await bridge.elicitation?.create(QUESTION, live())
    expect(client.sent[0]?.params).toMatchObject({ sessionId: 'parent', toolCallId: 'delegate_1' })
  })

  it('rejects an answer the ACP schema refuses', async () => {
    const bridge = createClientBridge(editor({ nothing: true }).send, FORMS, 's1')
    await expect(bridge.elicitation?.create(QUESTION, live())).rejects.toBeInstanceOf(ClientResponseError)
  })
})
