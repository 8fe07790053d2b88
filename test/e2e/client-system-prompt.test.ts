import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest } from '../support/fake-openai.js'
import { type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'
import { ASK, delegate, say, TASK } from '../support/subagent-conversation.js'

/**
 * The client's system prompt (ACP `systemPrompt` on session/new, load, resume and fork) end to end,
 * as the fake chat-completions server receives it: appended after ours or in its place, the same
 * bytes in a fork child, a subagent and the session loaded by a new process; a bad mode refused
 * with nothing created.
 */

const start = openAiAgents()
let run: OpenAiAgent | undefined
afterEach(() => {
  run = undefined
})

const CONVERSATION: Record<string, ModelMove[]> = {
  first: [say('one')],
  [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('kiwi')],
  [TASK]: [say('kiwi')],
  'in the fork': [say('forked')],
  'after the restart': [say('still here')],
  'overridden fork': [say('other')],
  plain: [say('plain')],
}

const OVERRIDE = 'You are a terse reviewer.'

function systemOf(agent: OpenAiAgent, user: string): string[] {
  return agent.fake.requests
    .filter((request: RecordedRequest) => lastUserText(request.body) === user)
    .map((request) => {
      const [first] = (request.body?.messages ?? []) as { role: string; content: string }[]
      expect(first?.role).toBe('system')
      return first?.content ?? ''
    })
}

/** The `sessionId` of a session/new or fork answer (the params carry a field the stable types lack). */
async function sessionIdOf(answer: Promise<unknown>): Promise<string> {
  const result = await answer
  if (
    typeof result === 'object' &&
    result !== null &&
    'sessionId' in result &&
    typeof result.sessionId === 'string'
  )
    return result.sessionId
  throw new Error(`no sessionId in ${JSON.stringify(result)}`)
}

function systemPrompt(mode: string, ...texts: string[]) {
  return { mode, content: texts.map((text) => ({ type: 'text', text })) }
}

describe("the client's system prompt", () => {
  it('is appended, kept by fork, subagent and load in a new process, and replaced by override', async () => {
    run = await start({ script: conversationModel(CONVERSATION).script })
    const { agent } = run.agent

    const newParams = {
      cwd: run.cwd,
      mcpServers: [],
      systemPrompt: systemPrompt('append', 'CLIENT RULES:', 'reply in haiku.'),
    }
    const sessionId = await sessionIdOf(agent.request('session/new', newParams))
    await run.prompt(sessionId, 'plain')
    const [prompt] = systemOf(run, 'plain')
    expect(prompt?.endsWith('\n\nCLIENT RULES:\n\nreply in haiku.')).toBe(true)
    expect(prompt).toContain(`- Working directory: ${run.cwd}`) // ours comes first

    const forkParams = { sessionId, cwd: run.cwd, mcpServers: [] }
    const child = await sessionIdOf(agent.request('session/fork', forkParams))
    await run.prompt(child, 'in the fork')
    await run.prompt(sessionId, ASK)
    expect(systemOf(run, 'in the fork')).toEqual([prompt])
    expect(systemOf(run, TASK)).toEqual([prompt])

    await run.restart()
    await run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers: [] })
    await run.prompt(sessionId, 'after the restart')
    expect(systemOf(run, 'after the restart')).toEqual([prompt])

    const overrideParams = { ...forkParams, systemPrompt: systemPrompt('override', OVERRIDE) }
    const other = await sessionIdOf(run.agent.agent.request('session/fork', overrideParams))
    await run.prompt(other, 'overridden fork')
    expect(systemOf(run, 'overridden fork')).toEqual([OVERRIDE])

    const events = run.loggedEvents(other).filter((e) => e.type === 'instructions:client')
    expect(events.map((e) => e.data)).toEqual([
      { mode: 'append', content: 'CLIENT RULES:\n\nreply in haiku.' },
      { mode: 'override', content: OVERRIDE },
    ])
    expect(run.agent.audit.problems).toEqual([])
  })

  it('refuses an unknown mode or a non-text block with -32602 and creates nothing', async () => {
    run = await start({ script: conversationModel(CONVERSATION).script })
    const { agent } = run.agent
    for (const bad of [
      systemPrompt('prepend', 'x'),
      { mode: 'append', content: [{ type: 'image', data: '', mimeType: 'image/png' }] },
    ]) {
      const params = { cwd: run.cwd, mcpServers: [], systemPrompt: bad }
      await expect(agent.request('session/new', params)).rejects.toMatchObject({ code: -32602 })
    }
    const { sessions } = await agent.request('session/list', {})
    expect(sessions).toEqual([])
  })
})
