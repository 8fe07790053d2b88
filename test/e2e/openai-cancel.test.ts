import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { chunk, completionStream } from '../support/fake-openai.js'
import { openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, deferred, messagesOf, until, updatesOfKind } from '../support/openai-wire.js'

/**
 * `session/cancel` against a real HTTP stream and a held permission request: the request to the
 * model server is really closed, the prompt answers `cancelled`, and the log stays valid (partial
 * text kept, the open tool call answered) so the session goes on.
 */

const start = openAiAgents()

describe('cancel with the openai provider', () => {
  it('mid-stream: the HTTP request is closed, stopReason cancelled, the partial text is in the replay', async () => {
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ content: 'partial ' }),
            chunk({ content: 'answer' }),
            { waitForClose: true },
          ],
        },
        { stream: completionStream({ text: 'fresh answer' }) },
      ],
    })
    const sessionId = await run.newSession()
    const prompt = run.prompt(sessionId, 'go')
    await until(
      () => chunkTexts(run.updatesOf(sessionId), 'agent_message_chunk').join('') === 'partial answer',
    )
    const [request] = run.fake.requests
    expect(request?.clientHungUp).toBe(false)
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    await request?.closed
    expect(request?.clientHungUp).toBe(true)

    const events = run.loggedEvents(sessionId)
    expect(events.find((e) => e.type === 'assistant/message')?.data.content).toBe('partial answer')
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
    expect(chunkTexts(await run.replay(sessionId), 'agent_message_chunk')).toEqual(['partial answer'])
    expect((await run.prompt(sessionId, 'next')).stopReason).toBe('end_turn')
    expect(messagesOf(run.fake.requests[1])).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'partial answer' },
      { role: 'user', content: 'next' },
    ])
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })

  it('mid-tool: cancel while the client holds the permission request; the tool result says cancelled', async () => {
    const asked: acp.RequestPermissionRequest[] = []
    const answerPermission = deferred<acp.RequestPermissionResponse>()
    const run = await start({
      script: [
        {
          stream: completionStream({
            toolCalls: [
              { id: 'call_w1', name: 'write_text_file', arguments: '{"path":"a.txt","content":"x"}' },
            ],
          }),
        },
        { stream: completionStream({ text: 'ok, not writing' }) },
      ],
      setupClient: (app) => {
        app.onRequest('session/request_permission', ({ params }) => {
          asked.push(params)
          return answerPermission.promise
        })
      },
    })
    const sessionId = await run.newSession()
    const prompt = run.prompt(sessionId, 'write a.txt')
    await until(() => asked.length === 1)
    await run.agent.agent.notify('session/cancel', { sessionId })
    // The turn ends without waiting for the client's answer to the permission request.
    expect((await prompt).stopReason).toBe('cancelled')
    answerPermission.resolve({ outcome: { outcome: 'cancelled' } })

    expect(existsSync(join(run.cwd, 'a.txt'))).toBe(false)
    expect(run.fake.requests).toHaveLength(1)
    const events = run.loggedEvents(sessionId)
    const result = events.find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ callId: 'call_w1', isError: true })
    expect(String(result?.data.output)).toMatch(/cancelled/i)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
    const update = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').at(-1)?.update
    expect(update).toMatchObject({ toolCallId: 'call_w1', status: 'failed' })

    expect((await run.prompt(sessionId, 'never mind')).stopReason).toBe('end_turn')
    const history = messagesOf(run.fake.requests[1]) as { role: string; content: string }[]
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(history[2]?.content).toMatch(/^Error: .*cancelled/i)
    expect(await run.agent.stop()).toBe(0)
    expect(run.agent.audit.problems).toEqual([])
  })
})
