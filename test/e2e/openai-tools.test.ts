import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply, type FakeToolCall } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, messagesOf, outgoingLabels, updatesOfKind } from '../support/openai-wire.js'

/**
 * The file tools end to end: the scripted model asks for `write_text_file` / `read_text_file`,
 * the built binary asks the official ACP client (permission, `fs/*`) or uses the local disk under
 * the session's cwd, and the next model request carries the result.
 */

const start = openAiAgents()

const callsThen = (calls: FakeToolCall[], finalText: string): FakeReply[] => [
  { stream: completionStream({ toolCalls: calls }) },
  { stream: completionStream({ text: finalText }) },
]

const WRITE_INPUT = { path: 'notes/a.txt', content: 'hello\n' }
/** The write call, its arguments streamed in two pieces as servers do. */
const WRITE_CALL: FakeToolCall = {
  id: 'call_w1',
  name: 'write_text_file',
  arguments: ['{"path":"notes/a.txt",', '"content":"hello\\n"}'],
}
const ASSISTANT_WRITE_CALL = {
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'call_w1',
      type: 'function',
      function: { name: 'write_text_file', arguments: JSON.stringify(WRITE_INPUT) },
    },
  ],
}

/** A client that answers permission requests with the option of `kind` and records fs writes. */
function editor(kind: 'allow_once' | 'reject_once') {
  const asked: acp.RequestPermissionRequest[] = []
  const writes: acp.WriteTextFileRequest[] = []
  const setupClient = (app: acp.ClientApp) => {
    app.onRequest('session/request_permission', ({ params }) => {
      asked.push(params)
      const option = params.options.find((o) => o.kind === kind)
      if (!option) throw new Error(`no ${kind} option offered`)
      return { outcome: { outcome: 'selected', optionId: option.optionId } }
    })
    app.onRequest('fs/write_text_file', ({ params }) => {
      writes.push(params)
      return {}
    })
  }
  return { asked, writes, setupClient }
}

describe('write_text_file end to end', () => {
  it('granted, through the editor: permission, fs/write_text_file, tool_call updates, the result goes back', async () => {
    const client = editor('allow_once')
    const run = await start({
      script: callsThen([WRITE_CALL], 'The note is written.'),
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
      setupClient: client.setupClient,
    })
    const sessionId = await run.newSession()
    const result = await run.prompt(sessionId, 'write a note')
    expect(result.stopReason).toBe('end_turn')

    expect(client.asked).toEqual([
      expect.objectContaining({
        sessionId,
        toolCall: expect.objectContaining({ toolCallId: 'call_w1', kind: 'edit', rawInput: WRITE_INPUT }),
      }),
    ])
    expect(client.writes).toEqual([{ sessionId, path: join(run.cwd, 'notes/a.txt'), content: 'hello\n' }])
    expect(existsSync(join(run.cwd, 'notes'))).toBe(false)
    expect(
      outgoingLabels(run.agent.audit.entries).filter((l) => !l.startsWith('update:agent_message')),
    ).toEqual([
      'response', // initialize
      'response', // session/new
      'update:available_commands_update', // after the answer that names the session
      'update:session_info_update', // the title, derived from the prompt
      'update:tool_call',
      'update:tool_call_update', // still pending, with the diff the user is asked about
      'session/request_permission',
      'update:tool_call_update', // in_progress
      'fs/write_text_file',
      'update:tool_call_update',
      'response', // session/prompt
    ])
    const live = run.updatesOf(sessionId)
    expect(updatesOfKind(live, 'tool_call')[0]?.update).toMatchObject({
      toolCallId: 'call_w1',
      kind: 'edit',
      status: 'pending',
      rawInput: WRITE_INPUT,
    })
    expect(updatesOfKind(live, 'tool_call_update').at(-1)?.update).toMatchObject({
      toolCallId: 'call_w1',
      status: 'completed',
    })

    expect(run.fake.requests).toHaveLength(2)
    expect(messagesOf(run.fake.requests[1])).toEqual([
      { role: 'user', content: 'write a note' },
      ASSISTANT_WRITE_CALL,
      { role: 'tool', tool_call_id: 'call_w1', content: 'Wrote 6 bytes to notes/a.txt' },
    ])
    const events = run.loggedEvents(sessionId)
    expect(events.filter((e) => e.type.startsWith('tool/')).map((e) => [e.type, e.data.callId])).toEqual([
      ['tool/call', 'call_w1'],
      ['tool/result', 'call_w1'],
    ])
    expect(events.filter((e) => e.type === 'step/start')).toHaveLength(2)

    const replay = await run.replay(sessionId)
    expect(updatesOfKind(replay, 'tool_call').map((u) => u.update.toolCallId)).toEqual(['call_w1'])
    expect(updatesOfKind(replay, 'tool_call_update')[0]?.update).toMatchObject({ status: 'completed' })
    await expectCleanExit(run)
  })

  it('granted, without fs.writeTextFile: the file lands on the local disk under the session cwd', async () => {
    const client = editor('allow_once')
    const run = await start({ script: callsThen([WRITE_CALL], 'Done.'), setupClient: client.setupClient })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'write a note')).stopReason).toBe('end_turn')
    expect(client.asked).toHaveLength(1)
    expect(agentRequests(run.agent.audit.entries, 'fs/write_text_file')).toEqual([])
    expect(readFileSync(join(run.cwd, 'notes/a.txt'), 'utf8')).toBe('hello\n')
    expect(messagesOf(run.fake.requests[1]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_w1',
      content: 'Wrote 6 bytes to notes/a.txt',
    })
    await expectCleanExit(run)
  })

  it('refused: nothing is written, the result says so, and the model goes on', async () => {
    const client = editor('reject_once')
    const run = await start({
      script: callsThen([WRITE_CALL], 'Understood, I will not write it.'),
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
      setupClient: client.setupClient,
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'write a note')).stopReason).toBe('end_turn')
    expect(client.asked).toHaveLength(1)
    expect(client.writes).toEqual([])
    expect(existsSync(join(run.cwd, 'notes'))).toBe(false)
    const toolMessage = messagesOf(run.fake.requests[1]).at(-1) as { role: string; content: string }
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_w1' })
    expect(toolMessage.content).toMatch(/^Error: .*refused/)
    const live = run.updatesOf(sessionId)
    expect(updatesOfKind(live, 'tool_call_update').at(-1)?.update).toMatchObject({ status: 'failed' })
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'tool/result')?.data).toMatchObject({
      isError: true,
    })
    expect(run.loggedEvents(sessionId).at(-1)).toMatchObject({ data: { reason: 'completed' } })
    await expectCleanExit(run)
  })
})

describe('read_text_file end to end', () => {
  it('through the editor: fs/read_text_file with the absolute path; a ../ escape never reaches it', async () => {
    const reads: acp.ReadTextFileRequest[] = []
    const run = await start({
      script: callsThen(
        [
          { id: 'call_r1', name: 'read_text_file', arguments: '{"path":"src/main.ts"}' },
          { id: 'call_r2', name: 'read_text_file', arguments: '{"path":"../outside.txt"}' },
        ],
        'Read it.',
      ),
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
      setupClient: (app) => {
        app.onRequest('fs/read_text_file', ({ params }) => {
          reads.push(params)
          return { content: 'unsaved buffer text\n' }
        })
      },
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'read main')).stopReason).toBe('end_turn')
    expect(reads).toEqual([{ sessionId, path: join(run.cwd, 'src/main.ts') }])
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toEqual([])
    const [first, second] = messagesOf(run.fake.requests[1]).slice(2) as { content: string }[]
    expect(first).toEqual({ role: 'tool', tool_call_id: 'call_r1', content: 'unsaved buffer text\n' })
    expect(second).toMatchObject({ role: 'tool', tool_call_id: 'call_r2' })
    expect(second?.content).toMatch(/^Error: .*outside/)
    await expectCleanExit(run)
  })

  it('on the local disk: reads inside cwd, refuses ../ escapes, and the outside file never leaves', async () => {
    const run = await start({
      script: callsThen(
        [
          { id: 'call_r1', name: 'read_text_file', arguments: '{"path":"docs/README.md","line":2}' },
          { id: 'call_r2', name: 'read_text_file', arguments: '{"path":"../scratch/secret.txt"}' },
        ],
        'Read it.',
      ),
    })
    mkdirSync(join(run.cwd, 'docs'))
    writeFileSync(join(run.cwd, 'docs/README.md'), 'title\nbody line\n')
    writeFileSync(join(run.scratch, 'secret.txt'), 'TOP SECRET')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'read docs')).stopReason).toBe('end_turn')
    const [first, second] = messagesOf(run.fake.requests[1]).slice(2) as { content: string }[]
    expect(first).toEqual({ role: 'tool', tool_call_id: 'call_r1', content: 'body line\n' })
    expect(second?.content).toMatch(/^Error: .*outside/)
    for (const request of run.fake.requests) expect(request.rawBody).not.toContain('TOP SECRET')
    expect(run.agent.audit.entries.some((e) => e.line.includes('TOP SECRET'))).toBe(false)
    const results = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update')
    expect(results.map((r) => [r.update.toolCallId, r.update.status])).toEqual([
      ['call_r1', 'in_progress'],
      ['call_r1', 'completed'],
      ['call_r2', 'in_progress'],
      ['call_r2', 'failed'],
    ])
    await expectCleanExit(run)
  })
})
