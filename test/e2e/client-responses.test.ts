import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { messagesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * A client result the ACP schema rejects, end to end: the built binary checks each result of a
 * request it sent, and a bad one fails that tool call with a clear error the model reads; the
 * turn and the session go on.
 */

const start = openAiAgents()

const READ: FakeReply[] = [
  {
    stream: completionStream({
      toolCalls: [{ id: 'call_r1', name: 'read_text_file', arguments: '{"path":"a.txt"}' }],
    }),
  },
  { stream: completionStream({ text: 'The editor failed.' }) },
]

/** What a misbehaving editor sends: any JSON, whatever the SDK's types say. */
const raw = (json: string) => JSON.parse(json)

describe('a client result the schema rejects', () => {
  it('fs/read_text_file answered without content: the tool call fails with the reason, the turn ends', async () => {
    const run = await start({
      script: READ,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
      setupClient: (app: acp.ClientApp) => {
        app.onRequest('fs/read_text_file', () => raw('{"text":"hi"}'))
      },
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'read a.txt')).stopReason).toBe('end_turn')
    const reason =
      'Error: read_text_file failed: the editor answered fs/read_text_file with an invalid response: content is required'
    expect(messagesOf(run.fake.requests[1]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_r1',
      content: reason,
    })
    expect(updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').at(-1)?.update).toMatchObject({
      toolCallId: 'call_r1',
      status: 'failed',
    })
    await expectCleanExit(run)
  })
})
