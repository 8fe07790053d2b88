import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { chunk, completionStream, type FakeScript, fakeServerPerTest } from '../support/fake-openai.js'
import { deferred, until } from '../support/openai-wire.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { normalizeAnyWorkDir } from '../support/snapshot-normalize.js'
import {
  expectScenarioSnapshot,
  runScenario,
  SNAPSHOT_ROOT,
  waitForUpdate,
} from '../support/snapshot-scenario.js'
import type { WireEntry } from '../support/wire-audit.js'

/**
 * Transcript snapshots of the openai provider (test/snapshots/openai-*): the wire both ways, the
 * store files, and the chat-completions request bodies the model server received, for a tool
 * round trip through the editor and for cancels mid-stream and mid-tool.
 */

const fake = fakeServerPerTest()
const modelArgs = (script: FakeScript) => fake.args(script)

/** The request bodies the fake server received, one JSON document (reviewed like the transcript). */
async function expectModelRequests(scenario: string): Promise<void> {
  const bodies = `${normalizeAnyWorkDir(
    JSON.stringify(
      fake.server?.requests.map((r) => r.body),
      null,
      2,
    ),
  )}\n`
  await expect(bodies).toMatchFileSnapshot(join(SNAPSHOT_ROOT, scenario, 'model-requests.json'))
}

/** True once the client has answered the agent's request of this method (so the transcript order is fixed). */
function answered(entries: readonly WireEntry[], method: string): boolean {
  const request = entries.find(
    (e) => e.dir === 'out' && (e.message as { method?: string })?.method === method,
  )
  const id = (request?.message as { id?: unknown } | undefined)?.id
  return (
    id !== undefined &&
    entries.some(
      (e) =>
        e.dir === 'in' &&
        (e.message as { id?: unknown; method?: unknown })?.id === id &&
        !(e.message as { method?: unknown }).method,
    )
  )
}

const allow = (params: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
  const option = params.options.find((o) => o.kind === 'allow_once')
  return { outcome: { outcome: 'selected', optionId: option?.optionId ?? 'none' } }
}

describe('openai transcript snapshots', () => {
  it('openai-tool-round-trip: reasoning, a write (permission, fs/write), a read (fs/read), an answer with usage, a load', async () => {
    const args = await modelArgs([
      {
        stream: completionStream({
          reasoning: 'I should write the file.',
          text: 'Writing it.',
          toolCalls: [
            {
              id: 'call_w',
              name: 'write_text_file',
              arguments: ['{"path":"notes/a.txt",', '"content":"hi\\n"}'],
            },
          ],
        }),
      },
      {
        stream: completionStream({
          toolCalls: [{ id: 'call_r', name: 'read_text_file', arguments: '{"path":"notes/a.txt"}' }],
        }),
      },
      {
        stream: completionStream({ text: ['The file ', 'says hi.'], usage: { prompt: 321, completion: 9 } }),
      },
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', ({ params }) => allow(params))
          app.onRequest('fs/write_text_file', () => ({}))
          app.onRequest('fs/read_text_file', () => ({ content: 'hi\n' }))
        },
      })
      await agent.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      })
      const sessionId = await newSession(agent)
      expect(await prompt(agent, sessionId, 'write notes/a.txt, then read it back')).toMatchObject({
        stopReason: 'end_turn',
      })
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    })
    expect(fake.server?.requests).toHaveLength(3)
    await expectScenarioSnapshot('openai-tool-round-trip', output)
    await expectModelRequests('openai-tool-round-trip')
  })

  it('openai-cancel: cancel while the model streams, then while the client holds a permission request', async () => {
    const permissionAsked = deferred()
    const answerPermission = deferred<acp.RequestPermissionResponse>()
    const args = await modelArgs([
      {
        stream: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Half ' }),
          chunk({ content: 'an answer' }),
          { waitForClose: true },
        ],
      },
      {
        stream: completionStream({
          toolCalls: [{ id: 'call_w', name: 'write_text_file', arguments: '{"path":"b.txt","content":"x"}' }],
        }),
      },
    ])
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args,
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => {
            permissionAsked.resolve()
            return answerPermission.promise
          })
        },
      })
      // fs.writeTextFile: the write goes through the editor, so the fixed cwd need not exist.
      await agent.initialize({ fs: { readTextFile: false, writeTextFile: true } })
      const sessionId = await newSession(agent)
      const streaming = prompt(agent, sessionId, 'a long answer please')
      await waitForUpdate(
        agent,
        (n) => (n.update as { content?: { text?: string } }).content?.text === 'an answer',
      )
      await agent.agent.notify('session/cancel', { sessionId })
      expect((await streaming).stopReason).toBe('cancelled')
      await fake.server?.requests[0]?.closed

      const tooling = prompt(agent, sessionId, 'now write b.txt')
      await permissionAsked.promise
      await agent.agent.notify('session/cancel', { sessionId })
      expect((await tooling).stopReason).toBe('cancelled')
      answerPermission.resolve({ outcome: { outcome: 'cancelled' } })
      await until(() => answered(agent.audit.entries, 'session/request_permission'))
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    })
    expect(fake.server?.requests[0]?.clientHungUp).toBe(true)
    await expectScenarioSnapshot('openai-cancel', output)
    await expectModelRequests('openai-cancel')
  })
})
