import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { deferred } from '../support/openai-wire.js'
import { newSession, prompt, text } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshot of a steer (test/snapshots/steering-permission): the model calls a tool that
 * asks permission; while the question is open (the turn can take no step), the client steers the
 * turn, waits for the answer `injected`, and only then allows the call. So the steer is in the
 * next model request after the tool result, whatever the machine's speed: every step of the
 * transcript waits for the message before it, never for time. A `session/load` replays the steer
 * as a user message at its place, marked `_meta.dsh.steered`.
 */

/** The script counts user messages: the request after the steer holds two, so it is "turn" 2's. */
const TURNS = [
  [[{ toolCall: { name: 'write_text_file', input: { path: 'notes.txt', content: 'red' } } }]],
  [[{ text: 'Wrote notes.txt, and read your note about blue.' }]],
]

describe('steering transcript snapshots', () => {
  it('steering-permission: a steer sent while a permission is open reaches the next step, once; load shows it', async () => {
    const output = await runScenario(async (s) => {
      const model = s.scriptModel('model.json', TURNS)
      const asked = deferred()
      const answer = deferred<acp.RequestPermissionResponse>()
      const agent = s.start({
        args: ['--model', model],
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => {
            asked.resolve()
            return answer.promise
          })
        },
      })
      await agent.initialize()
      const sessionId = await newSession(agent)
      const turn = prompt(agent, sessionId, 'write notes.txt')
      await asked.promise
      const steered = await agent.agent.request('_session/steering', {
        sessionId,
        prompt: [text('make it blue')],
      })
      expect(steered).toEqual({ outcome: 'injected' })
      answer.resolve({ outcome: { outcome: 'selected', optionId: 'allow_once' } })
      expect((await turn).stopReason).toBe('end_turn')
      const steeredShown = (from: number) =>
        agent.updates
          .slice(from)
          .filter(
            (n) => (n.update._meta as { dsh?: { steered?: boolean } } | undefined)?.dsh?.steered === true,
          )
          .map((n) => n.update)
      const live = steeredShown(0)
      expect(live).toHaveLength(1)
      const before = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      expect(steeredShown(before)).toEqual(live)
    })
    await expectScenarioSnapshot('steering-permission', output)
  })
})
