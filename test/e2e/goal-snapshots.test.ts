import { describe, expect, it } from 'vitest'
import { goalWireErrors } from '../../src/acp/goals/wire-schema.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshot of a session goal (test/snapshots/goal-three-turns): the client sets a goal,
 * sends one prompt, and the agent goes on with two turns of its own (each prompted with the
 * objective, shown as a user message) until the scripted model calls `goal_status` complete in the
 * third; then a `session/load` replays every goal change at its place. No step waits on another
 * process: every output follows from the input before it.
 */

const THREE_TURNS = [
  [[{ text: 'Read the failing test.' }]],
  [[{ text: 'Fixed the parser.' }]],
  [
    [{ toolCall: { name: 'goal_status', input: { status: 'complete', reason: 'the suite passes' } } }],
    [{ text: 'The suite passes: the goal is met.' }],
  ],
]

describe('goal transcript snapshots', () => {
  it('goal-three-turns: a goal the model meets in the third turn of one prompt; load replays it', async () => {
    const output = await runScenario(async (s) => {
      const model = s.scriptModel('model.json', THREE_TURNS)
      const agent = s.start({ args: ['--model', model] })
      await agent.initialize()
      const sessionId = await newSession(agent)
      const set = await agent.agent.request('_session/goal', {
        sessionId,
        action: 'set',
        objective: 'make the parser tests pass',
      })
      expect(goalWireErrors('goalResult', set)).toEqual([])
      expect((await prompt(agent, sessionId, 'start on the goal')).stopReason).toBe('end_turn')
      const live = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      const goals = (from: number, to: number) =>
        agent.updates
          .slice(from, to)
          .map((n) => (n.update._meta as { goal?: { status: string; iterations: number } } | undefined)?.goal)
          .filter((goal) => goal !== undefined)
          .map((goal) => `${goal.status} ${goal.iterations}`)
      expect(goals(0, live)).toEqual(['active 0', 'active 1', 'active 2', 'complete 3'])
      expect(goals(live, agent.updates.length)).toEqual(goals(0, live))
    })
    await expectScenarioSnapshot('goal-three-turns', output)
  })
})
