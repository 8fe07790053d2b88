import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { fork, newSession, prompt, text } from '../support/snapshot-client.js'
import {
  expectScenarioSnapshot,
  runScenario,
  type Scenario,
  waitForUpdate,
} from '../support/snapshot-scenario.js'

/** A turn that streams one chunk, then waits until it is cancelled (the wait ends early). */
const SLOW_TURN = [[{ text: 'working on it' }, { delayMs: 600_000 }, { text: ' (never said)' }]]
const QUICK_TURN = [[{ text: 'quick answer' }]]
const saysWorkingOnIt = (n: acp.SessionNotification) =>
  (n.update as { content?: { text?: string } }).content?.text === 'working on it'

/**
 * A session with one quick turn done (`first`, its answer) and a slow one running on it, which has
 * said it is working; `cancel()` cancels it and checks that it ended `cancelled`.
 */
async function slowTurnRunning(s: Scenario) {
  const agent = s.start({ args: ['--model', s.scriptModel('model.json', [QUICK_TURN, SLOW_TURN])] })
  await agent.initialize()
  const source = await newSession(agent)
  const first = await prompt(agent, source, 'quick')
  const running = agent.agent.request('session/prompt', { sessionId: source, prompt: [text('slow')] })
  await waitForUpdate(agent, saysWorkingOnIt)
  const cancel = async () => {
    await agent.agent.notify('session/cancel', { sessionId: source })
    expect((await running).stopReason).toBe('cancelled')
  }
  return { agent, source, first, cancel }
}

/**
 * `session/fork`'s refusals and its behaviour while the source's prompt runs, recorded as
 * transcript snapshots. Turns left running are cancelled, so every transcript is deterministic.
 */
describe('session/fork errors and open turns (transcript snapshots)', () => {
  it('fork-errors: unknown session, bad boundaries, relative and different cwd', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const source = await newSession(agent)
      const end = (await prompt(agent, source, 'one turn')).seq
      await expect(fork(agent, 'ses_unknown')).rejects.toMatchObject({
        code: -32002,
        data: { sessionId: 'ses_unknown' },
      })
      for (const boundary of [-1, 1.5, end + 1, '2', null]) {
        await expect(fork(agent, source, { boundary })).rejects.toMatchObject({
          code: -32602,
          data: { code: 'INVALID_BOUNDARY' },
        })
      }
      await expect(fork(agent, source, { boundary: end - 1 })).rejects.toMatchObject({
        code: -32602,
        data: { code: 'OPEN_TURN', boundary: end - 1, lastSafeBoundary: 0 },
      })
      await expect(fork(agent, source, { cwd: 'work/project' })).rejects.toMatchObject({ code: -32602 })
      const elsewhere = s.directory('elsewhere')
      await expect(fork(agent, source, { cwd: elsewhere })).rejects.toMatchObject({
        code: -32602,
        data: { cwd: elsewhere, sessionCwd: agent.cwd },
      })
      const { sessions } = await agent.agent.request('session/list', {})
      expect(sessions.map((entry) => entry.sessionId)).toEqual([source])
    })
    await expectScenarioSnapshot('fork-errors', output)
  })

  it('fork-disabled: --no-fork leaves the capability out and session/fork answers -32601', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start({ args: ['--no-fork'] })
      const init = await agent.initialize()
      expect(init.agentCapabilities?.sessionCapabilities).not.toHaveProperty('fork')
      const source = await newSession(agent)
      await expect(fork(agent, source)).rejects.toMatchObject({ code: -32601 })
    })
    await expectScenarioSnapshot('fork-disabled', output)
  })

  it('fork-open-turn: while a prompt runs, a fork without boundary is refused with lastSafeBoundary', async () => {
    const output = await runScenario(async (s) => {
      const { agent, source, first, cancel } = await slowTurnRunning(s)
      await expect(fork(agent, source)).rejects.toMatchObject({
        code: -32602,
        data: { code: 'OPEN_TURN', lastSafeBoundary: first.seq },
      })
      await cancel()
    })
    await expectScenarioSnapshot('fork-open-turn', output)
  })

  it('fork-earlier-boundary: while a prompt runs, a fork at a closed boundary succeeds', async () => {
    const output = await runScenario(async (s) => {
      const { agent, source, first, cancel } = await slowTurnRunning(s)
      const child = await fork(agent, source, { boundary: first.seq })
      expect(child).toMatchObject({ parentSession: source, seedLength: first.seq })
      await cancel()
      const { sessions } = await agent.agent.request('session/list', {})
      expect(sessions.map((entry) => entry.sessionId)).toEqual([child.sessionId, source])
    })
    await expectScenarioSnapshot('fork-earlier-boundary', output)
  })
})
