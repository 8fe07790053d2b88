import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type FakeOpenAi, fakeModelArgs, startFakeOpenAi } from '../support/fake-openai.js'
import { conversationModel, type ModelMove } from '../support/prefix-cache.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { normalizeAnyWorkDir } from '../support/snapshot-normalize.js'
import { expectScenarioSnapshot, runScenario, SNAPSHOT_ROOT } from '../support/snapshot-scenario.js'

/**
 * Transcript snapshots of a delegation (test/snapshots/subagent-*), one per wire variant: a client
 * without the unstable `subagents` capability (the parent's tool call carries the child) and one
 * with it (subagent_update, then the child's own session/updates). In both the child writes a
 * file, so its permission request shows where it is asked; then the child is listed and loaded, and
 * the parent is loaded (its replay shows the delegation as that client saw it live).
 */

let fake: FakeOpenAi | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

const REMEMBER = 'remember: the code word is kiwi'
const ASK = 'ask a helper to write the code word to word.txt'
const TASK = 'write the code word to word.txt'

const TABLE: Record<string, ModelMove[]> = {
  [REMEMBER]: [{ text: 'Noted.' }],
  [ASK]: [
    { calls: [{ id: 'call_d', name: 'delegate', arguments: { task: TASK, title: 'Scribe' } }] },
    { text: 'The helper wrote it.' },
  ],
  [TASK]: [
    { calls: [{ id: 'call_w', name: 'write_text_file', arguments: { path: 'word.txt', content: 'kiwi' } }] },
    { text: 'Wrote kiwi to word.txt.' },
  ],
}

async function delegationScenario(name: string, clientCapabilities: acp.ClientCapabilities): Promise<void> {
  fake = await startFakeOpenAi(
    conversationModel(TABLE, {
      countOn: (body) => JSON.parse(normalizeAnyWorkDir(JSON.stringify(body))),
    }).script,
  )
  const args = fakeModelArgs(fake)
  const output = await runScenario(async (s) => {
    const agent = s.start({
      args,
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => ({
          outcome: { outcome: 'selected', optionId: 'allow_once' },
        }))
        app.onRequest('fs/write_text_file', () => ({}))
      },
    })
    await agent.initialize(clientCapabilities)
    const sessionId = await newSession(agent)
    expect((await prompt(agent, sessionId, REMEMBER)).stopReason).toBe('end_turn')
    expect((await prompt(agent, sessionId, ASK)).stopReason).toBe('end_turn')
    const { sessions } = await agent.agent.request('session/list', {})
    const child = sessions.find((info) => info.sessionId !== sessionId)
    expect(child?._meta).toMatchObject({ dsh: { parentSession: sessionId, subagent: { callId: 'call_d' } } })
    await agent.agent.request('session/load', {
      sessionId: child?.sessionId ?? '',
      cwd: agent.cwd,
      mcpServers: [],
    })
    // The parent's replay shows the delegation as this client saw it live.
    await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
  })
  await expectScenarioSnapshot(name, output)
  const bodies = `${normalizeAnyWorkDir(
    JSON.stringify(
      fake.requests.map((r) => r.body),
      null,
      2,
    ),
  )}\n`
  await expect(bodies).toMatchFileSnapshot(join(SNAPSHOT_ROOT, name, 'model-requests.json'))
}

describe('subagent transcript snapshots', () => {
  it('subagent-delegate: a client without subagent support sees the child through the parent’s tool call', async () => {
    await delegationScenario('subagent-delegate', { fs: { readTextFile: false, writeTextFile: true } })
  })

  it('subagent-delegate-capable: a client with the subagents capability sees subagent_update, then the child’s session', async () => {
    await delegationScenario('subagent-delegate-capable', {
      fs: { readTextFile: false, writeTextFile: true },
      subagents: {},
    } as acp.ClientCapabilities)
  })
})
