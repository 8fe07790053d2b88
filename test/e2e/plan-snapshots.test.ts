import { describe, expect, it } from 'vitest'
import { validateAcpMessage } from '../support/acp-schema.js'
import { answerText, newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of the model's plan (test/snapshots/plan-*): a scripted model keeps a plan
 * with `update_plan`, changing it three times in one turn, and clears it in the next; then a
 * `session/load` replays every change at its place. Without the unstable `plan` capability the
 * client gets stable `plan` updates; with it, `plan_update` (type `items`) and `plan_removed`.
 */

const entry = (content: string, status: string, priority?: string) => ({
  content,
  status,
  ...(priority !== undefined && { priority }),
})
const plan = (...entries: ReturnType<typeof entry>[]) => ({
  toolCall: { name: 'update_plan', input: { entries } },
})

/** Turn 1: three plans in three steps, then the answer; turn 2: the plan cleared. */
const PLAN_TURNS = [
  [
    [
      plan(
        entry('Read the failing test', 'in_progress', 'high'),
        entry('Fix the parser', 'pending', 'high'),
        entry('Run the suite', 'pending', 'low'),
      ),
    ],
    [
      plan(
        entry('Read the failing test', 'completed', 'high'),
        entry('Fix the parser', 'in_progress', 'high'),
        entry('Run the suite', 'pending', 'low'),
      ),
    ],
    [
      plan(
        entry('Read the failing test', 'completed', 'high'),
        entry('Fix the parser', 'completed', 'high'),
        entry('Run the suite', 'completed'),
      ),
    ],
    [{ text: 'Done: the parser is fixed and the suite passes.' }],
  ],
  [[{ toolCall: { name: 'update_plan', input: { entries: [] } } }], [{ text: 'Plan cleared.' }]],
]

async function planScenario(capabilities: Record<string, unknown>, schema: 'stable' | 'unstable') {
  const seen: string[] = []
  const output = await runScenario(async (s) => {
    const model = s.scriptModel('model.json', PLAN_TURNS)
    const agent = s.start({ args: ['--model', model] })
    await agent.initialize(capabilities)
    const sessionId = await newSession(agent)
    expect((await prompt(agent, sessionId, 'fix the parser')).stopReason).toBe('end_turn')
    expect(answerText(agent, sessionId)).toBe('Done: the parser is fixed and the suite passes.')
    expect((await prompt(agent, sessionId, 'forget the plan')).stopReason).toBe('end_turn')
    const live = agent.updates.length
    await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    const kinds = (from: number, to: number) =>
      agent.updates
        .slice(from, to)
        .map((n) => n.update.sessionUpdate)
        .filter((kind) => kind.startsWith('plan'))
    seen.push(...kinds(0, live))
    // The replay shows the same plan changes, in the same places.
    expect(kinds(live, agent.updates.length)).toEqual(kinds(0, live))
    for (const notification of agent.updates) {
      const message = { jsonrpc: '2.0', method: 'session/update', params: notification }
      expect(validateAcpMessage(message, { schema })).toEqual([])
    }
  })
  return { output, seen }
}

describe('plan transcript snapshots', () => {
  it('plan-stable: a plan that changes three times, then is cleared, as stable plan updates', async () => {
    const { output, seen } = await planScenario({}, 'stable')
    expect(seen).toEqual(['plan', 'plan', 'plan', 'plan'])
    await expectScenarioSnapshot('plan-stable', output)
  })

  it('plan-unstable: the same plan as plan_update and plan_removed for a client with the plan capability', async () => {
    const { output, seen } = await planScenario({ plan: {} }, 'unstable')
    expect(seen).toEqual(['plan_update', 'plan_update', 'plan_update', 'plan_removed'])
    await expectScenarioSnapshot('plan-unstable', output)
  })
})
