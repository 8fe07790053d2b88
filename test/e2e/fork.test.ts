import { describe, expect, it } from 'vitest'
import { answerText, fork, newSession, prompt, userTexts } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * `session/fork` over real stdio, each scenario recorded as a transcript snapshot beside the store
 * files it leaves (test/snapshots/<scenario>/). The assertions say what each transcript shows.
 */
describe('session/fork scenarios (transcript snapshots)', () => {
  it('fork-default-boundary: prompt twice, fork without a boundary: the child has everything', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const parent = await newSession(agent)
      await prompt(agent, parent, 'first')
      const second = await prompt(agent, parent, 'second')
      const child = await fork(agent, parent)
      expect(child).toEqual({ sessionId: 'ses_2', parentSession: parent, seedLength: second.seq })
      const from = agent.updates.length
      await prompt(agent, child.sessionId, 'third')
      expect(answerText(agent, child.sessionId, from)).toContain('I remember 3 messages')
    })
    await expectScenarioSnapshot('fork-default-boundary', output)
  })

  it('fork-first-turn: the child remembers only the first message, the parent is unchanged', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const parent = await newSession(agent)
      const first = await prompt(agent, parent, 'first')
      await prompt(agent, parent, 'second')
      const child = await fork(agent, parent, { boundary: first.seq })
      expect(child.seedLength).toBe(first.seq)
      let from = agent.updates.length
      await prompt(agent, child.sessionId, 'asked in the child')
      const childAnswer = answerText(agent, child.sessionId, from)
      expect(childAnswer).toContain('I remember 2 messages')
      expect(childAnswer).toContain('"first"')
      expect(childAnswer).not.toContain('"second"')
      from = agent.updates.length
      await prompt(agent, parent, 'asked in the parent')
      const parentAnswer = answerText(agent, parent, from)
      expect(parentAnswer).toContain('I remember 3 messages')
      expect(parentAnswer).not.toContain('asked in the child')
    })
    await expectScenarioSnapshot('fork-first-turn', output)
  })

  it('fork-empty: an empty session and boundary 0 both give empty children', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const empty = await newSession(agent)
      expect(await fork(agent, empty)).toMatchObject({ parentSession: empty, seedLength: 0 })
      const parent = await newSession(agent)
      await prompt(agent, parent, 'not inherited')
      const zero = await fork(agent, parent, { boundary: 0 })
      expect(zero.seedLength).toBe(0)
      const from = agent.updates.length
      await prompt(agent, zero.sessionId, 'fresh start')
      const answer = answerText(agent, zero.sessionId, from)
      expect(answer).toContain('I remember 1 message')
      expect(answer).not.toContain('not inherited')
    })
    await expectScenarioSnapshot('fork-empty', output)
  })

  it('fork-load-child: session/load on a child replays its inherited history, then its own', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const parent = await newSession(agent)
      const first = await prompt(agent, parent, 'inherited')
      await prompt(agent, parent, 'parent only')
      const child = await fork(agent, parent, { boundary: first.seq })
      await prompt(agent, child.sessionId, 'child only')
      const from = agent.updates.length
      await agent.agent.request('session/load', {
        sessionId: child.sessionId,
        cwd: agent.cwd,
        mcpServers: [],
      })
      expect(userTexts(agent, child.sessionId, from)).toEqual(['inherited', 'child only'])
    })
    await expectScenarioSnapshot('fork-load-child', output)
  })

  it('fork-of-fork: lineage is a parentSession chain in session/list', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const root = await newSession(agent)
      await prompt(agent, root, 'root')
      const child = await fork(agent, root)
      await prompt(agent, child.sessionId, 'child')
      const grandchild = await fork(agent, child.sessionId)
      const { sessions } = await agent.agent.request('session/list', {})
      const parents = Object.fromEntries(
        sessions.map((e) => [
          e.sessionId,
          (e._meta as { dsh: { parentSession?: string } }).dsh.parentSession,
        ]),
      )
      expect(parents).toEqual({
        [root]: undefined,
        [child.sessionId]: root,
        [grandchild.sessionId]: child.sessionId,
      })
    })
    await expectScenarioSnapshot('fork-of-fork', output)
  })

  it('fork-after-restart: a persisted session that is not loaded can be forked', async () => {
    const output = await runScenario(async (s) => {
      const before = s.start()
      await before.initialize()
      const parent = await newSession(before)
      await prompt(before, parent, 'said before the restart')
      expect(await before.stop()).toBe(0)
      const after = s.start({ idPrefix: 'ses_r' })
      await after.initialize()
      const child = await fork(after, parent)
      expect(child.sessionId).toBe('ses_r1')
      await prompt(after, child.sessionId, 'said after the restart')
      expect(answerText(after, child.sessionId)).toContain('"said before the restart"')
      await after.agent.request('session/list', {})
    })
    await expectScenarioSnapshot('fork-after-restart', output)
  })
})
