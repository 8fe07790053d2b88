import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { projectHistory, type Session } from '../../session/index.js'
import { echoAnswer } from '../providers/echo.js'
import { createEchoProvider } from '../providers/index.js'

// A slash command's turn is recorded (and replayed) but is no part of the model's conversation.

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

const lastAnswer = (session: Session) =>
  session
    .events()
    .filter((e) => e.type === 'assistant/message')
    .at(-1)?.data.content

describe('slash commands and the model’s history', () => {
  it('a command turn is marked; the echo model remembers only the conversation, in the session and in a fork of it', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    const prompt = (text: string, target = session) =>
      ctx?.agent.runTurn(target, { ...request(text), commands: true })
    await prompt('hello')
    await prompt('/help')
    await prompt('/title The plan')
    const starts = session.events().filter((e) => e.type === 'turn/start')
    expect(starts.map((e) => e.data)).toEqual([
      { turn: 1 },
      { turn: 2, command: 'help' },
      { turn: 3, command: 'title' },
    ])
    expect(lastAnswer(session)).toBe('Title set: The plan')
    // Still in the log as the user typed it and as the agent answered.
    const users = session.events().filter((e) => e.type === 'user/message')
    expect(users).toHaveLength(3)

    await prompt('again')
    expect(lastAnswer(session)).toBe(echoAnswer(['hello', 'again']))
    expect(projectHistory(session.events()).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])

    // An unknown /name is a prompt like any other: it is conversation.
    await prompt('/nope')
    expect(lastAnswer(session)).toBe(echoAnswer(['hello', 'again', '/nope']))

    const child = ctx.sessions.fork(session, session.lastSeq)
    await prompt('in the fork', child)
    expect(lastAnswer(child)).toBe(echoAnswer(['hello', 'again', '/nope', 'in the fork']))
  })

  it('without commands (a subagent’s task), a prompt naming a command goes to the model', async () => {
    ctx = await startAgent({ provider: createEchoProvider() })
    const session = ctx.sessions.create()
    await ctx.agent.runTurn(session, request('/help'))
    expect(session.events().find((e) => e.type === 'turn/start')?.data).toEqual({ turn: 1 })
    expect(lastAnswer(session)).toBe(echoAnswer(['/help']))
  })
})
