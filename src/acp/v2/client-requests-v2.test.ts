import { describe, expect, it } from 'vitest'
import { v2ClientRequests } from './client-requests-v2.js'

/** A client that answers each request with `answer`, and a log of what the agent sent, in order. */
function harness(answer: (method: string, params: unknown) => unknown) {
  const sent: unknown[] = []
  const send = async (method: string, params: unknown) => {
    sent.push({ method, params })
    return answer(method, params)
  }
  const notify = async (sessionId: string, update: Record<string, unknown>) => {
    sent.push({ sessionId, update })
  }
  return { sent, request: v2ClientRequests(send, notify) }
}

const toolCall = { toolCallId: 'c1', title: 'Edit a.ts', kind: 'edit', status: 'pending' }
const options = [{ optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' }]

describe('our requests to a v2 client', () => {
  it('a permission request: requires_action before it, in v2 shape (title, subject), running after it', async () => {
    const { sent, request } = harness(() => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
    await request('session/request_permission', { sessionId: 's', toolCall, options })
    expect(sent).toEqual([
      { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'requires_action' } },
      {
        method: 'session/request_permission',
        params: { sessionId: 's', options, title: 'Edit a.ts', subject: { type: 'tool_call', toolCall } },
      },
      { sessionId: 's', update: { sessionUpdate: 'state_update', state: 'running' } },
    ])
  })

  it('two waiting at once: one requires_action, one running once both are answered', async () => {
    const answers: Array<() => void> = []
    const sent: string[] = []
    const request = v2ClientRequests(
      () => new Promise((done) => answers.push(() => done({ action: 'decline' }))),
      async (_s, update) => {
        sent.push(String(update.state))
      },
    )
    const a = request('elicitation/create', { sessionId: 's', mode: 'form', message: 'a' })
    const b = request('elicitation/create', { sessionId: 's', mode: 'form', message: 'b' })
    await new Promise((r) => setImmediate(r))
    expect(answers).toHaveLength(2)
    answers[0]?.()
    await Promise.race([a, b])
    expect(sent).toEqual(['requires_action'])
    answers[1]?.()
    await Promise.all([a, b])
    expect(sent).toEqual(['requires_action', 'running'])
  })

  it('a cancelled wait does not go back to running (idle follows)', async () => {
    const controller = new AbortController()
    const { sent, request } = harness(() => {
      controller.abort()
      return { outcome: { outcome: 'cancelled' } }
    })
    await request('session/request_permission', { sessionId: 's', toolCall, options }, controller.signal)
    expect(sent.filter((m) => 'update' in (m as object))).toHaveLength(1)
  })

  it('open enums: an outcome or action we do not know is no approval (reject_once, cancel)', async () => {
    const custom = harness((method) =>
      method === 'elicitation/create' ? { action: '_later' } : { outcome: { outcome: '_vendor' } },
    )
    expect(await custom.request('session/request_permission', { sessionId: 's', toolCall, options })).toEqual(
      {
        outcome: { outcome: 'selected', optionId: 'reject_once' },
      },
    )
    expect(
      await custom.request('elicitation/create', { sessionId: 's', mode: 'form', message: 'q' }),
    ).toEqual({
      action: 'cancel',
    })
  })

  it('other requests pass as they are, with no state update', async () => {
    const { sent, request } = harness(() => ({}))
    await request('mcp/message', { sessionId: 's', x: 1 })
    expect(sent).toEqual([{ method: 'mcp/message', params: { sessionId: 's', x: 1 } }])
  })
})
