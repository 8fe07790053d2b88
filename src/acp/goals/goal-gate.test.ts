import { describe, expect, it } from 'vitest'
import { goalInfoUpdate } from '../../session/index.js'
import type { ClientState } from '../client-state.js'
import { ClientView } from '../views/client-view.js'

const client = (protocolVersion: number): ClientState =>
  ({ protocolVersion, capabilities: {} }) as ClientState

const goal = goalInfoUpdate({
  objective: 'o',
  status: 'active',
  iterations: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
})

describe('the goal extension is gated on what initialize offered', () => {
  it('an ACP v1 or v2 client (offered _meta.goal) is shown goal updates; one before initialize is not', () => {
    expect(new ClientView(client(1)).render({ sessionId: 's', update: goal }).map((n) => n.update)).toEqual([
      goal,
    ])
    expect(new ClientView(client(2)).render({ sessionId: 's', update: goal }).map((n) => n.update)).toEqual([
      goal,
    ])
    expect(new ClientView(undefined).render({ sessionId: 's', update: goal })).toEqual([])
  })

  it('other session_info_updates (titles) still reach every client', () => {
    const title = { sessionUpdate: 'session_info_update' as const, title: 't' }
    expect(new ClientView(client(2)).render({ sessionId: 's', update: title })).not.toEqual([])
  })
})

describe('_session/goal is served to the clients offered it', () => {
  it('a connection before initialize gets -32601, and nothing is read', async () => {
    const { sessionGoalMethod } = await import('./goal-method.js')
    const params = { sessionId: 'ses_1', action: 'clear' }
    const call = { client: undefined } as unknown as Parameters<typeof sessionGoalMethod.handle>[1]
    await expect(sessionGoalMethod.handle(params, call)).rejects.toMatchObject({ code: -32601 })
  })
})
