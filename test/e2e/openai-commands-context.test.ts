import { describe, expect, it } from 'vitest'
import type { RecordedRequest } from '../support/fake-openai.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { messagesOf } from '../support/openai-wire.js'
import { conversationModel, lastUserText } from '../support/prefix-cache.js'
import { delegate, say } from '../support/subagent-conversation.js'

/**
 * A slash command is recorded and replayed but is not conversation (issue 22 #12): after `/help`
 * and `/title`, no request to the model server carries the commands or their answers, neither the
 * session's own nor those of a fork or a subagent seeded from its log; `session/load` still replays
 * the command exchange.
 */

const start = openAiAgents()

const requestFor = (run: OpenAiAgent, user: string): RecordedRequest => {
  const found = run.fake.requests.find((r) => lastUserText(r.body) === user)
  if (!found) throw new Error(`no request for ${user}`)
  return found
}

/** What a request must not carry: the commands typed and what they answered. */
function expectNoCommands(request: RecordedRequest): void {
  for (const text of ['/help', '/title', 'Commands:', 'Title set']) {
    expect(request.rawBody).not.toContain(text)
  }
}

describe('slash commands stay out of the model’s context', () => {
  it('after /help and /title: the next request, a fork’s and a subagent’s carry no command; load replays them', async () => {
    const model = conversationModel({
      hello: [say('hi')],
      next: [say('ok')],
      'delegate now': [delegate({ id: 'call_d', task: 'child task' }), say('done')],
      'child task': [say('child ok')],
      'in the fork': [say('forked ok')],
    })
    const run = await start({ script: model.script })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'hello')
    await run.prompt(sessionId, '/help')
    await run.prompt(sessionId, '/title The plan')
    // The commands were answered by the agent: the model server was not asked.
    expect(run.fake.requests).toHaveLength(1)
    await run.prompt(sessionId, 'next')

    const next = requestFor(run, 'next')
    expect(messagesOf(next)).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'next' },
    ])
    expectNoCommands(next)

    // A subagent, seeded from the log (commands included), sends none of them either.
    expect((await run.prompt(sessionId, 'delegate now')).stopReason).toBe('end_turn')
    const child = requestFor(run, 'child task')
    expectNoCommands(child)
    expect(messagesOf(child).at(-1)).toEqual({ role: 'user', content: 'child task' })

    // A fork of the whole session: its first request has the conversation without the commands.
    const forked = await run.agent.agent.request('session/fork', {
      sessionId,
      cwd: run.cwd,
      mcpServers: [],
    })
    await run.prompt(forked.sessionId, 'in the fork')
    const fork = requestFor(run, 'in the fork')
    expectNoCommands(fork)
    expect(messagesOf(fork).slice(0, 3)).toEqual(messagesOf(next))

    // The log still holds the command exchange: a load replays it.
    await run.restart()
    const replay = await run.replay(sessionId)
    const texts = replay
      .filter((n) => n.update.sessionUpdate.endsWith('message_chunk'))
      .map((n) => (n.update as { content: { text: string } }).content.text)
    expect(texts).toContain('/help')
    expect(texts.some((t) => t.startsWith('Commands:\n/fork'))).toBe(true)
    expect(texts).toContain('/title The plan')
    expect(texts).toContain('Title set: The plan')
    await expectCleanExit(run)
  })
})
