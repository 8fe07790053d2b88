import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chunk } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { chunkTexts, messagesOf, updatesOfKind } from '../support/openai-wire.js'

/**
 * Stream shapes of real model servers, as fixtures written here (not recordings): OpenRouter
 * repeating a tool call's id and name beside its arguments, OpenRouter's `finish_reason: "error"`,
 * and a server sending a thought as both `reasoning` and `reasoning_content`.
 */

const start = openAiAgents()

describe('openai end to end: stream shapes of real servers', () => {
  it('a tool call whose id and name a later delta repeats runs once, under its own name', async () => {
    const call = (args: string) => ({
      tool_calls: [
        { index: 0, id: 'call_k2', type: 'function', function: { name: 'read_text_file', arguments: args } },
      ],
    })
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk(call('')),
            chunk(call('{"path":')),
            chunk({ tool_calls: [{ index: 0, function: { name: '', arguments: '"a.txt"}' } }] }),
            chunk({}, 'tool_calls'),
            { data: '[DONE]' },
          ],
        },
        { stream: [chunk({ content: 'read it' }, 'stop'), { data: '[DONE]' }] },
      ],
    })
    writeFileSync(join(run.cwd, 'a.txt'), 'alpha\n')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'read a.txt')).stopReason).toBe('end_turn')
    const [toolCall] = updatesOfKind(run.updatesOf(sessionId), 'tool_call')
    expect(toolCall?.update).toMatchObject({ toolCallId: 'call_k2' })
    const sentBack = messagesOf(run.fake.requests[1]) as {
      role: string
      tool_calls?: unknown[]
      content?: string
    }[]
    expect(sentBack[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_k2', function: { name: 'read_text_file', arguments: '{"path":"a.txt"}' } }],
    })
    expect(sentBack[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_k2' })
    expect(sentBack[2]?.content).toContain('alpha')
    await expectCleanExit(run)
  })

  it('finish_reason "error" ends the turn with an error, keeping the text before it', async () => {
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: 'half ' }),
            {
              data: {
                id: 'gen-1',
                object: 'chat.completion.chunk',
                error: { code: 502, message: 'Provider returned error' },
                choices: [
                  { index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error' },
                ],
              },
            },
            { data: '[DONE]' },
          ],
        },
        { stream: [chunk({ content: 'bare' }), chunk({}, 'error'), { data: '[DONE]' }] },
      ],
    })
    const sessionId = await run.newSession()
    await expect(run.prompt(sessionId, 'go')).rejects.toMatchObject({
      code: -32020,
      message: `the model failed: the model server at ${run.fake.url}/chat/completions reported an error during the answer: Provider returned error. The turn can be retried.`,
    })
    await expect(run.prompt(sessionId, 'again')).rejects.toMatchObject({
      code: -32020,
      message: expect.stringMatching(/reported an error during the answer\. The turn can be retried\.$/),
    })
    const events = run.loggedEvents(sessionId)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['error', 'error'])
    expect(events.filter((e) => e.type === 'assistant/message').map((e) => e.data.content)).toEqual([
      'half ',
      'bare',
    ])
    await expectCleanExit(run)
  })

  it('a thought sent as both reasoning and reasoning_content is shown and stored once', async () => {
    const run = await start({
      script: [
        {
          stream: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ reasoning: 'Let me think.', reasoning_content: 'Let me think.' }),
            chunk({ content: 'Done.' }, 'stop'),
            { data: '[DONE]' },
          ],
        },
      ],
    })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'think')
    expect(chunkTexts(run.updatesOf(sessionId), 'agent_thought_chunk')).toEqual(['Let me think.'])
    const message = run.loggedEvents(sessionId).find((e) => e.type === 'assistant/message')
    expect(message?.data).toMatchObject({ content: 'Done.', thought: 'Let me think.' })
    await expectCleanExit(run)
  })
})
