import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  afterTools,
  call,
  childrenOf,
  lastUser,
  modelOf,
  text,
} from '../../../test/support/delegate-model.js'
import { replayBySeq, request, startAgent, updatesBySeq } from '../../../test/support/turn-harness.js'
import { projectUpdates } from '../../session/index.js'
import { createEchoProvider } from '../providers/echo.js'
import { echoPlanSteps } from '../providers/echo-plan.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'
import { planSummary } from './update-plan-tool.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const plan = (...entries: unknown[]) => ({ toolCall: { name: 'update_plan', input: { entries } } })
const script = (turns: unknown) => createScriptProvider(parseModelScript(turns))

describe('update_plan', () => {
  it('records each plan as plan:updated, streams it as a plan update, and a load replays the same', async () => {
    ctx = await startAgent({
      provider: script([
        [
          [plan({ content: 'Read', status: 'in_progress' })],
          [plan({ content: 'Read', status: 'completed', priority: 'high' })],
          [{ text: 'done' }],
        ],
      ]),
    })
    const session = ctx.sessions.create()
    const turn = request('go')
    await ctx.agent.runTurn(session, turn)
    const plans = session.events().filter((e) => e.type === 'plan:updated')
    expect(plans.map((e) => e.data)).toEqual([
      { entries: [{ content: 'Read', status: 'in_progress', priority: 'medium' }] },
      { entries: [{ content: 'Read', status: 'completed', priority: 'high' }] },
    ])
    const live = turn.live.filter((u) => u.update.sessionUpdate === 'plan')
    expect(live.map((u) => u.seq)).toEqual(plans.map((e) => e.seq))
    expect(replayBySeq(session)).toEqual(updatesBySeq(turn.live))
    const results = session.events().filter((e) => e.type === 'tool/result')
    expect(results.map((e) => e.data.output)).toEqual([
      'Plan updated: 1 entry (1 in progress).',
      'Plan updated: 1 entry (1 completed).',
    ])
  })

  it('refuses a malformed plan with an error result and records none', async () => {
    ctx = await startAgent({
      provider: script([[[plan({ content: '', status: 'done' })], [{ text: 'ok' }]]]),
    })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('go'))
    expect(session.events().some((e) => e.type === 'plan:updated')).toBe(false)
    const result = session.events().find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true })
  })

  it('a fork child inherits the plan as of its boundary, not the later ones', async () => {
    ctx = await startAgent({
      provider: script([
        [[plan({ content: 'A', status: 'pending' })], [{ text: 'one' }]],
        [[plan({ content: 'A', status: 'completed' })], [{ text: 'two' }]],
      ]),
    })
    const session = ctx.sessions.create()
    const first = await ctx.agent.runTurn(session, request('one'))
    await ctx.agent.runTurn(session, request('two'))
    const child = ctx.sessions.fork(session, first.seq)
    const plans = projectUpdates(child.id, child.events()).filter((n) => n.update.sessionUpdate === 'plan')
    expect(plans.map((n) => n.update)).toEqual([
      { sessionUpdate: 'plan', entries: [{ content: 'A', status: 'pending', priority: 'medium' }] },
    ])
  })

  it('is summarized by status for the model', () => {
    expect(planSummary([])).toBe('Plan cleared.')
    expect(
      planSummary([
        { content: 'a', status: 'completed', priority: 'low' },
        { content: 'b', status: 'pending', priority: 'low' },
      ]),
    ).toBe('Plan updated: 2 entries (1 completed, 1 pending).')
  })
})

describe('the echo model with a plan prompt', () => {
  it('works through "plan: a; b" with update_plan, then answers', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    const turn = request('plan: write it; test it')
    expect((await ctx.agent.runTurn(session, turn)).stopReason).toBe('end_turn')
    const plans = turn.live.flatMap((u) => (u.update.sessionUpdate === 'plan' ? [u.update.entries] : []))
    expect(plans.map((entries) => entries.map((e) => e.status))).toEqual([
      ['in_progress', 'pending'],
      ['completed', 'in_progress'],
      ['completed', 'completed'],
    ])
    expect(session.events().at(-3)?.data).toMatchObject({ content: 'Done: 2 steps.' })
  })

  it('reads the steps of a plan prompt', () => {
    expect(echoPlanSteps('plan:\n- one\n- two')).toEqual(['one', 'two'])
    expect(echoPlanSteps('Plan: a;b')).toEqual(['a', 'b'])
    expect(echoPlanSteps('a plan: no')).toBeUndefined()
    expect(echoPlanSteps('plan:  ')).toBeUndefined()
  })
})

describe("a subagent's plan", () => {
  it("belongs to the child: in the child's log and on the child's updates, never the parent's", async () => {
    const model = modelOf((req) => {
      if (lastUser(req) === 'sub') {
        return afterTools(req)
          ? [text('sub done')]
          : [call('p1', 'update_plan', { entries: [{ content: 'Child step', status: 'in_progress' }] })]
      }
      if (afterTools(req)) return [text('ok')]
      return [call('d1', 'delegate', { task: 'sub', title: 'Helper' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const childUpdates: string[] = []
    const turn = request('go', {
      subagent: () => ({
        sendUpdate: (update: { sessionUpdate: string }) => childUpdates.push(update.sessionUpdate),
        client: {},
      }),
    })
    await ctx.agent.runTurn(parent, turn)
    const [child] = childrenOf(ctx, parent)
    expect(child?.events().filter((e) => e.type === 'plan:updated')).toHaveLength(1)
    expect(parent.events().some((e) => e.type === 'plan:updated')).toBe(false)
    expect(childUpdates).toContain('plan')
    expect(turn.live.some((u) => u.update.sessionUpdate === 'plan')).toBe(false)
  })
})
