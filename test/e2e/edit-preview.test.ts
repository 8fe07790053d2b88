import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply, type FakeToolCall } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { outgoingLabels, updatesOfKind } from '../support/openai-wire.js'

/**
 * Issue 22 #11: the user sees what they approve. When an edit or a write asks permission, the
 * pending tool call (a `tool_call_update` still `pending`) and the `session/request_permission`
 * tool call both carry the change as an ACP `diff` (absolute path, `oldText` absent for a new file,
 * `newText`) and its location, before the user answers. Every wire message is checked against the
 * SDK's schema (`expectCleanExit`).
 */

const start = openAiAgents()

const callThen = (call: FakeToolCall, finalText: string): FakeReply[] => [
  { stream: completionStream({ toolCalls: [call] }) },
  { stream: completionStream({ text: finalText }) },
]

/** A client that records permission requests and answers them with the option of `kind`. */
function asker(kind: 'allow_once' | 'reject_once' = 'allow_once') {
  const asked: acp.RequestPermissionRequest[] = []
  const setupClient = (app: acp.ClientApp) => {
    app.onRequest('session/request_permission', ({ params }) => {
      asked.push(params)
      const option = params.options.find((o) => o.kind === kind)
      if (!option) throw new Error(`no ${kind} option offered`)
      return { outcome: { outcome: 'selected', optionId: option.optionId } }
    })
  }
  return { asked, setupClient }
}

/** The labels of what the agent sent from the tool call on, without message chunks. */
function labelsFromToolCall(run: Awaited<ReturnType<typeof start>>): string[] {
  const labels = outgoingLabels(run.agent.audit.entries).filter((l) => !l.startsWith('update:agent_message'))
  return labels.slice(labels.indexOf('update:tool_call'))
}

describe('the diff is shown before an edit or a write is approved', () => {
  it('edit_text_file on the local disk: the pending tool call and the permission request carry the diff', async () => {
    const client = asker()
    const run = await start({
      script: callThen(
        {
          id: 'call_e1',
          name: 'edit_text_file',
          arguments: JSON.stringify({ path: 'hello.txt', edits: [{ oldText: 'world', newText: 'there' }] }),
        },
        'Edited.',
      ),
      setupClient: client.setupClient,
    })
    const file = join(run.cwd, 'hello.txt')
    writeFileSync(file, 'line one\nhello world\n')
    const diff = {
      type: 'diff',
      path: file,
      oldText: 'line one\nhello world\n',
      newText: 'line one\nhello there\n',
    }
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'edit it')).stopReason).toBe('end_turn')

    expect(client.asked).toHaveLength(1)
    expect(client.asked[0]?.toolCall).toMatchObject({
      toolCallId: 'call_e1',
      kind: 'edit',
      status: 'pending',
      content: [diff],
      locations: [{ path: file, line: 2 }],
    })
    const pending = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update')[0]?.update
    expect(pending).toMatchObject({ toolCallId: 'call_e1', status: 'pending', content: [diff] })
    expect(labelsFromToolCall(run)).toEqual([
      'update:tool_call',
      'update:tool_call_update', // pending, with the diff
      'session/request_permission',
      'update:tool_call_update', // in_progress
      'update:tool_call_update', // completed
      'response',
    ])
    expect(readFileSync(file, 'utf8')).toBe('line one\nhello there\n')
    await expectCleanExit(run)
  })

  it('write_text_file of a new file: the diff has no oldText, and a refusal writes nothing', async () => {
    const client = asker('reject_once')
    const run = await start({
      script: callThen(
        {
          id: 'call_w1',
          name: 'write_text_file',
          arguments: '{"path":"notes/new.txt","content":"fresh\\n"}',
        },
        'Not written.',
      ),
      setupClient: client.setupClient,
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'write it')).stopReason).toBe('end_turn')
    const content = client.asked[0]?.toolCall.content
    expect(content).toEqual([{ type: 'diff', path: join(run.cwd, 'notes/new.txt'), newText: 'fresh\n' }])
    expect(content?.[0]).not.toHaveProperty('oldText')
    expect(updatesOfKind(run.updatesOf(sessionId), 'tool_call_update')[0]?.update).toMatchObject({
      status: 'pending',
      content,
    })
    expect(() => readFileSync(join(run.cwd, 'notes/new.txt'))).toThrow()
    await expectCleanExit(run)
  })

  it('through the editor: the old text comes from fs/read_text_file before the question', async () => {
    const client = asker()
    const file = 'src/app.ts'
    const run = await start({
      script: callThen(
        {
          id: 'call_w2',
          name: 'write_text_file',
          arguments: JSON.stringify({ path: file, content: 'new\n' }),
        },
        'Written.',
      ),
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      setupClient: (app) => {
        client.setupClient(app)
        app.onRequest('fs/read_text_file', () => ({ content: 'unsaved buffer\n' }))
        app.onRequest('fs/write_text_file', () => ({}))
      },
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'write it')).stopReason).toBe('end_turn')
    expect(client.asked[0]?.toolCall.content).toEqual([
      { type: 'diff', path: join(run.cwd, file), oldText: 'unsaved buffer\n', newText: 'new\n' },
    ])
    const labels = labelsFromToolCall(run)
    expect(labels.indexOf('fs/read_text_file')).toBeLessThan(labels.indexOf('session/request_permission'))
    expect(labels.indexOf('session/request_permission')).toBeLessThan(labels.indexOf('fs/write_text_file'))
    await expectCleanExit(run)
  })

  it('a change past the preview cap: the question says the diff is not shown, the edit still runs once allowed', async () => {
    const client = asker()
    const big = `${'x'.repeat(600 * 1024)}\nend\n`
    const run = await start({
      script: callThen(
        {
          id: 'call_e2',
          name: 'edit_text_file',
          arguments: JSON.stringify({ path: 'big.txt', edits: [{ oldText: 'end', newText: 'END' }] }),
        },
        'Edited.',
      ),
      setupClient: client.setupClient,
    })
    writeFileSync(join(run.cwd, 'big.txt'), big)
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'edit it')).stopReason).toBe('end_turn')
    const content = client.asked[0]?.toolCall.content
    expect(content).toHaveLength(1)
    expect(content?.[0]).toMatchObject({ type: 'content', content: { type: 'text' } })
    expect(JSON.stringify(content)).toContain('is not shown')
    expect(JSON.stringify(client.asked[0]).length).toBeLessThan(64 * 1024)
    expect(readFileSync(join(run.cwd, 'big.txt'), 'utf8')).toBe(big.replace('end', 'END'))
    await expectCleanExit(run)
  })

  it('a file changed while the question was open is not written: the user approved another change', async () => {
    let file = ''
    const run = await start({
      script: callThen(
        {
          id: 'call_e4',
          name: 'edit_text_file',
          arguments: JSON.stringify({ path: 'c.txt', edits: [{ oldText: 'one', newText: 'ONE' }] }),
        },
        'It changed.',
      ),
      setupClient: (app) => {
        app.onRequest('session/request_permission', () => {
          writeFileSync(file, 'one\nwritten by someone else meanwhile\n')
          return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
        })
      },
    })
    file = join(run.cwd, 'c.txt')
    writeFileSync(file, 'one\n')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'edit it')).stopReason).toBe('end_turn')
    const last = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').at(-1)?.update
    expect(last).toMatchObject({ toolCallId: 'call_e4', status: 'failed' })
    expect(JSON.stringify(last)).toContain('changed after the change was shown for approval')
    expect(readFileSync(file, 'utf8')).toBe('one\nwritten by someone else meanwhile\n')
    await expectCleanExit(run)
  })

  it('an edit that cannot apply fails without asking the user', async () => {
    const client = asker()
    const run = await start({
      script: callThen(
        {
          id: 'call_e3',
          name: 'edit_text_file',
          arguments: JSON.stringify({ path: 'a.txt', edits: [{ oldText: 'missing', newText: 'x' }] }),
        },
        'It failed.',
      ),
      setupClient: client.setupClient,
    })
    writeFileSync(join(run.cwd, 'a.txt'), 'present\n')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'edit it')).stopReason).toBe('end_turn')
    expect(client.asked).toEqual([])
    const last = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').at(-1)?.update
    expect(last).toMatchObject({ toolCallId: 'call_e3', status: 'failed' })
    expect(JSON.stringify(last)).toContain('oldText was not found')
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('present\n')
    await expectCleanExit(run)
  })
})
