import { afterEach, describe, expect, it } from 'vitest'
import { validateAcpMessage } from '../../../test/support/acp-schema.js'
import { afterTools, call, lastUser, modelOf, text } from '../../../test/support/delegate-model.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { ClientBridge } from '../../agent/types.js'
import {
  projectUpdates,
  type Session,
  type SessionUpdateNotification,
  type WireNotification,
} from '../../session/index.js'
import type { ClientState } from '../client-state.js'
import { type ClientFeatures, clientFeatures } from './client-features.js'
import { ClientView } from './client-view.js'
import { acpV1Renderer } from './v1/renderer.js'

let stop: (() => Promise<void>) | undefined
afterEach(async () => {
  await stop?.()
  stop = undefined
})

const client = (capabilities: Record<string, unknown>): ClientState =>
  ({ protocolVersion: 1, capabilities }) as ClientState

/** Three clients of one session: one advertised nothing, one everything, one a mixture. */
const CLIENTS = {
  none: client({}),
  all: client({ session: { notices: {}, compaction: {} }, plan: {}, subagents: {} }),
  mixed: client({ session: { notices: {} }, plan: {} }),
} as const

/**
 * One session, recorded live: a plan, a `/compact` (with its notice), a delegation to a subagent,
 * then the plan cleared. Returns the canonical updates its turns emitted on the parent (the
 * child's go to its channel) and the session.
 */
async function recordedSession(): Promise<{ live: SessionUpdateNotification[]; session: Session }> {
  const model = modelOf((req) => {
    if (req.purpose === 'summary') return [text('A summary '), text('of it.')]
    if (lastUser(req) === 'sub') return [text('sub answer')]
    if (afterTools(req)) return [text('ok')]
    if (lastUser(req) === 'plan it')
      return [call('p1', 'update_plan', { entries: [{ content: 'Step', status: 'pending' }] })]
    if (lastUser(req) === 'clear it') return [call('p2', 'update_plan', { entries: [] })]
    return [call('d1', 'delegate', { task: 'sub', title: 'Helper' })]
  })
  const ctx = await startAgent({ provider: model })
  stop = () => ctx.stop()
  const session = ctx.sessions.create()
  const bridge: ClientBridge = { subagent: () => ({ sendUpdate: () => {}, client: {} }) }
  const live: SessionUpdateNotification[] = []
  for (const prompt of ['plan it', '/compact', 'delegate it', 'clear it']) {
    const turn = { ...request(prompt, bridge), commands: true }
    await ctx.agent.runTurn(session, turn)
    for (const { update, seq } of turn.live)
      live.push({ sessionId: session.id, update, _meta: { dsh: { seq } } })
  }
  return { live, session }
}

const kinds = (sent: readonly WireNotification[]) =>
  sent.map(({ update }) =>
    update.sessionUpdate === 'tool_call' && update.toolCallId.startsWith('compaction_')
      ? `think ${update.status}`
      : update.sessionUpdate === 'compaction_update' || update.sessionUpdate === 'subagent_update'
        ? `${update.sessionUpdate} ${'status' in update ? update.status : update.state?.state}`
        : update.sessionUpdate === 'tool_call'
          ? 'tool_call'
          : update.sessionUpdate,
  )

/** What is shown of the updates a view decides (the others are the same for every client). */
const DECIDED = /^(plan|compaction|notice|subagent|think|agent_message_chunk)/

/** The feature that decides how `update` is shown; undefined for one every client sees alike. */
function featureOf(update: SessionUpdateNotification['update']): keyof ClientFeatures | undefined {
  switch (update.sessionUpdate) {
    case 'plan':
      return 'plan'
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return 'compaction'
    case 'notice':
      return 'notices'
    case 'subagent_update':
      return 'subagents'
    default:
      return undefined
  }
}

describe('ClientView: one session, three clients, live and in a load', () => {
  it('renders the same canonical updates for what each client advertised', async () => {
    const { live, session } = await recordedSession()
    const loaded = projectUpdates(session.id, session.events())
    const shown = (name: keyof typeof CLIENTS, updates: readonly SessionUpdateNotification[]) => {
      const view = new ClientView(CLIENTS[name])
      return kinds(updates.flatMap((n) => acpV1Renderer.render(n, view.features))).filter((kind) =>
        DECIDED.test(kind),
      )
    }
    // Live: `ok` answers come as agent messages to every client; the rest is the view's choice.
    expect(shown('none', live)).toEqual([
      'plan',
      'agent_message_chunk',
      'think in_progress',
      'agent_message_chunk',
      'agent_message_chunk',
      'plan',
      'agent_message_chunk',
    ])
    expect(shown('all', live)).toEqual([
      'plan_update',
      'agent_message_chunk',
      'compaction_update in_progress',
      'compaction_summary_chunk',
      'compaction_summary_chunk',
      'compaction_update completed',
      'notice',
      'agent_message_chunk',
      'subagent_update running',
      'subagent_update idle',
      'agent_message_chunk',
      'plan_removed',
      'agent_message_chunk',
    ])
    expect(shown('mixed', live)).toEqual([
      'plan_update',
      'agent_message_chunk',
      'think in_progress',
      'notice',
      'agent_message_chunk',
      'agent_message_chunk',
      'plan_removed',
      'agent_message_chunk',
    ])
    // A load: no notice (notices are never history), a compaction as one finished update.
    expect(shown('none', loaded)).toEqual([
      'plan',
      'agent_message_chunk',
      'think completed',
      'agent_message_chunk',
      'agent_message_chunk',
      'plan',
      'agent_message_chunk',
    ])
    expect(shown('all', loaded)).toEqual([
      'plan_update',
      'agent_message_chunk',
      'compaction_update completed',
      'agent_message_chunk',
      'agent_message_chunk',
      'plan_removed',
      'agent_message_chunk',
    ])
    expect(shown('mixed', loaded)).toEqual(
      shown('all', loaded).map((k) => k.replace(/^compaction_update completed$/, 'think completed')),
    )
  })

  it('is a pure function of the canonical update and the capabilities: a mixture shows each update as the client with that one feature', async () => {
    const { live, session } = await recordedSession()
    const all = [...live, ...projectUpdates(session.id, session.events())]
    const views = {
      none: () => new ClientView(CLIENTS.none),
      all: () => new ClientView(CLIENTS.all),
      mixed: () => new ClientView(CLIENTS.mixed),
    }
    const mixed = clientFeatures(CLIENTS.mixed)
    for (const notification of all) {
      const fresh = views.mixed().render(notification)
      // The same with a view that rendered everything before it, and again: no hidden state.
      expect(views.mixed().render(notification)).toEqual(fresh)
      const feature = featureOf(notification.update)
      const like = feature !== undefined && mixed[feature] ? 'all' : 'none'
      expect(fresh).toEqual(views[like]().render(notification))
      for (const wire of fresh) {
        const params =
          wire.update.sessionUpdate.startsWith('plan_') || wire.update.sessionUpdate === 'subagent_update'
        if (!params)
          expect(validateAcpMessage({ jsonrpc: '2.0', method: 'session/update', params: wire })).toEqual([])
      }
    }
    const connection = views.mixed()
    const streamed = all.flatMap((n) => connection.render(n))
    expect(streamed).toEqual(all.flatMap((n) => views.mixed().render(n)))
  })

  it('says the configuration notices once per client, and only shows them to a client with notices', () => {
    const notices = [{ severity: 'warning', title: 'Ignored', description: 'A setting.' }] as const
    const capable = new ClientView(CLIENTS.all)
    const first = capable.configNotices('s', notices).flatMap((n) => capable.render(n))
    expect(first.map((n) => n.update)).toEqual([
      { sessionUpdate: 'notice', severity: 'warning', title: 'Ignored', description: 'A setting.' },
    ])
    expect(capable.configNotices('t', notices)).toEqual([])
    const plain = new ClientView(CLIENTS.none)
    expect(plain.configNotices('s', notices).flatMap((n) => plain.render(n))).toEqual([])
  })

  it('shows a notice’s fallback as an agent message to a client without notices, and never the fallback field', () => {
    const notification: SessionUpdateNotification = {
      sessionId: 's',
      update: { sessionUpdate: 'notice', severity: 'error', title: 'Lost', fallback: 'It is lost.\n' },
    }
    expect(new ClientView(CLIENTS.none).render(notification).map((n) => n.update)).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'It is lost.\n' } },
    ])
    expect(new ClientView(CLIENTS.all).render(notification).map((n) => n.update)).toEqual([
      { sessionUpdate: 'notice', severity: 'error', title: 'Lost' },
    ])
  })
})

describe("another client's turn state", () => {
  const started: SessionUpdateNotification = {
    sessionId: 'ses_1',
    update: { sessionUpdate: 'turn_state', state: 'running' },
    _meta: { dsh: { seq: 4 } },
  }
  const ended: SessionUpdateNotification = {
    sessionId: 'ses_1',
    update: { sessionUpdate: 'turn_state', state: 'idle', stopReason: 'cancelled' },
    _meta: { dsh: { seq: 9 } },
  }

  it('is nothing to an ACP v1 client, whatever it advertised', () => {
    for (const state of Object.values(CLIENTS)) {
      const view = new ClientView(state)
      expect([...view.render(started), ...view.render(ended)]).toEqual([])
    }
  })

  it("is v2's state_update, running, then idle with the stop reason", () => {
    const view = new ClientView({ protocolVersion: 2, capabilities: {} } as ClientState)
    expect([...view.render(started), ...view.render(ended)].map((n) => n.update)).toEqual([
      { sessionUpdate: 'state_update', state: 'running' },
      { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' },
    ])
  })
})
