import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import {
  afterTools,
  call,
  childrenOf,
  Happenings,
  lastUser,
  modelOf,
  results,
  text,
} from '../../../test/support/delegate-model.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { SubagentLink } from '../types.js'
import { DELEGATE_TOOL } from './delegate-tool.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

describe('delegate: several subagents at once', () => {
  it('several delegations in one step run concurrently, at most maxConcurrent at once, results in call order', async () => {
    const seen = new Happenings()
    const release = new Map<string, () => void>()
    let inFlight = 0
    let peak = 0
    let hold = true
    const model = modelOf(async (req) => {
      const user = lastUser(req)
      if (user.startsWith('task ')) {
        inFlight++
        peak = Math.max(peak, inFlight)
        if (hold) {
          await new Promise<void>((resolve) => {
            release.set(user, resolve)
            seen.add(`asks ${user}`)
          })
        }
        inFlight--
        seen.add(`ends ${user}`)
        return [text(`done ${user}`)]
      }
      if (afterTools(req)) return [text('all done')]
      return ['a', 'b', 'c'].map((n) => call(`d_${n}`, DELEGATE_TOOL, { task: `task ${n}` }))
    })
    ctx = await startAgent({ provider: model, subagents: { maxConcurrent: 2 } })
    const parent = ctx.sessions.create()
    const req = request('go', {
      subagent: (link: SubagentLink) => {
        seen.add(`opens ${link.task}`)
        return { sendUpdate: () => {}, client: {} }
      },
    })
    const opened = () => seen.log.filter((entry) => entry.startsWith('opens '))
    const running = ctx.agent.runTurn(parent, req)
    await seen.when((log) => log.includes('asks task a') && log.includes('asks task b'))
    // Both slots are taken: the third delegation has not been spawned (it is spawned before its
    // child asks the model, so it would be in the log by now).
    expect(opened()).toEqual(['opens task a', 'opens task b'])
    // Finish the second first: the third starts in its slot; results still come in call order.
    release.get('task b')?.()
    await seen.when((log) => log.includes('asks task c'))
    expect(seen.log.indexOf('opens task c')).toBeGreaterThan(seen.log.indexOf('ends task b'))
    expect(seen.log).not.toContain('ends task a')
    hold = false
    for (const next of release.values()) next()
    expect((await running).endReason).toBe('completed')
    expect(peak).toBe(2)
    expect(results(parent).map((r) => [r.data.callId, r.data.output])).toEqual([
      ['d_a', 'done task a'],
      ['d_b', 'done task b'],
      ['d_c', 'done task c'],
    ])
    expect(childrenOf(ctx, parent)).toHaveLength(3)
  })

  it('cancelling the parent cancels every running child: each child’s turn ends cancelled before the parent’s', async () => {
    const seen = new Happenings()
    const model = modelOf(async (req, signal) => {
      if (lastUser(req).startsWith('slow')) {
        seen.add(`starts ${lastUser(req)}`)
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))))
      }
      return [call('d1', DELEGATE_TOOL, { task: 'slow 1' }), call('d2', DELEGATE_TOOL, { task: 'slow 2' })]
    })
    ctx = await startAgent({ provider: model })
    const parent = ctx.sessions.create()
    const req = request('go')
    const running = ctx.agent.runTurn(parent, req)
    await seen.when((log) => log.length === 2)
    req.controller.abort()
    const outcome = await running
    expect(outcome.endReason).toBe('cancelled')
    const children = childrenOf(ctx, parent)
    expect(children).toHaveLength(2)
    for (const child of children) {
      expect(child.events().at(-1)?.data).toMatchObject({ reason: 'cancelled' })
      expect(ctx.agent.isRunning(child.id)).toBe(false)
    }
    expect(results(parent).map((r) => r.data.isError)).toEqual([true, true])
    expect(String(results(parent)[0]?.data.output)).toMatch(/^Cancelled: subagent/)
  })
})
