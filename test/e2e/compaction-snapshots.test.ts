import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { fork, newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario, type Scenario } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of compaction with the offline echo model (deterministic summaries), one per
 * wire variant: with `clientCapabilities.session.compaction` (compaction_update and
 * compaction_summary_chunk live, one completed compaction_update on load) and without it (a `think`
 * tool call). Each: a first turn, a second whose request passes --compact-at of --context-window
 * (the automatic trigger), `/compact` with instructions, a turn after, a fork before the first
 * compaction and one after, and a load of the session.
 */
async function compactionScenario(s: Scenario, capabilities: acp.ClientCapabilities): Promise<void> {
  const agent = s.start({ args: ['--context-window', '4000', '--compact-at', '0.4', '--no-subagents'] })
  await agent.initialize(capabilities)
  const sessionId = await newSession(agent)
  const first = await prompt(agent, sessionId, `first: ${'read the README and the docs, '.repeat(40)}`)
  await prompt(agent, sessionId, 'second: fix the typo in src/a.ts')
  await prompt(agent, sessionId, '/compact keep the file names')
  expect((await prompt(agent, sessionId, 'third: what did I ask?')).stopReason).toBe('end_turn')
  const before = await fork(agent, sessionId, { boundary: first.seq })
  await prompt(agent, before.sessionId, 'in the fork before')
  const after = await fork(agent, sessionId)
  await prompt(agent, after.sessionId, 'in the fork after')
  await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
}

describe('compaction transcript snapshots', () => {
  it('compaction-updates: a client with session.compaction', async () => {
    const output = await runScenario((s) => compactionScenario(s, { session: { compaction: {} } }))
    await expectScenarioSnapshot('compaction-updates', output)
  })

  it('compaction-fallback: a client without it sees a think tool call', async () => {
    const output = await runScenario((s) => compactionScenario(s, {}))
    await expectScenarioSnapshot('compaction-fallback', output)
  })
})
