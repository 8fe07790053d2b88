import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest } from '../support/fake-openai.js'
import { type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'
import { ASK, delegate, REMEMBER, say, TASK } from '../support/subagent-conversation.js'

/**
 * The system prompt end to end, as the fake chat-completions server receives it: built from the
 * environment and the AGENTS.md files recorded when the session was created, it is the same bytes
 * for the session's later turns, a fork child, a subagent and the session loaded by a new process,
 * even after the files changed; a new session and `/reload-instructions` take the new text.
 */

const start = openAiAgents()
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const CONVERSATION: Record<string, ModelMove[]> = {
  [REMEMBER]: [say('Noted.')],
  [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('The helper says kiwi.')],
  [TASK]: [say('kiwi')],
  'in the fork': [say('forked')],
  'after the restart': [say('still here')],
  'in a new session': [say('new')],
  'after the reload': [say('reloaded')],
}

/** The system message of each request whose last user message is `user`. */
function systemOf(run: OpenAiAgent, user: string): string[] {
  return run.fake.requests
    .filter((request: RecordedRequest) => lastUserText(request.body) === user)
    .map((request) => {
      const [first] = (request.body?.messages ?? []) as { role: string; content: string }[]
      expect(first?.role).toBe('system')
      return first?.content ?? ''
    })
}

describe('the system prompt across fork, subagent, load and reload', () => {
  it('sends one prefix for the session, its fork, its subagent and its reload; new text only where asked', async () => {
    const config = mkdtempSync(join(tmpdir(), 'dsh-acp-xdg-'))
    dirs.push(config)
    mkdirSync(join(config, 'dsh-acp'))
    writeFileSync(join(config, 'dsh-acp', 'AGENTS.md'), 'USER: answer in English.\n')
    const run = await start({
      script: conversationModel(CONVERSATION).script,
      env: { XDG_CONFIG_HOME: config },
    })
    mkdirSync(join(run.cwd, '.git'))
    writeFileSync(join(run.cwd, '.git', 'HEAD'), 'ref: refs/heads/trunk\n')
    writeFileSync(join(run.cwd, 'AGENTS.md'), 'PROJECT v1: run npm test before you finish.\n')

    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    const [prompt] = systemOf(run, REMEMBER)
    expect(prompt).toContain('USER: answer in English.')
    expect(prompt).toContain('PROJECT v1: run npm test before you finish.')
    expect(prompt?.indexOf('USER:')).toBeLessThan(prompt?.indexOf('PROJECT v1') ?? -1)
    expect(prompt).toContain(
      `- Working directory: ${run.cwd} (in the git repository at ${run.cwd}, on branch trunk).`,
    )
    expect(prompt).toContain('- Platform: ')
    expect(prompt).toMatch(/- Date: \d{4}-\d\d-\d\d/)

    // The files change: what this session recorded holds for it and everything made from it.
    writeFileSync(join(run.cwd, 'AGENTS.md'), 'PROJECT v2: use pnpm.\n')

    const { sessionId: child } = await run.agent.agent.request('session/fork', {
      sessionId: parent,
      cwd: run.cwd,
      mcpServers: [],
    })
    await run.prompt(child, 'in the fork')
    await run.prompt(parent, ASK)
    expect(systemOf(run, 'in the fork')).toEqual([prompt])
    // The parent's two steps of the delegating turn, and the subagent's request.
    expect(systemOf(run, ASK)).toEqual([prompt, prompt])
    expect(systemOf(run, TASK)).toEqual([prompt])

    await run.restart()
    await run.agent.agent.request('session/load', { sessionId: parent, cwd: run.cwd, mcpServers: [] })
    await run.prompt(parent, 'after the restart')
    expect(systemOf(run, 'after the restart')).toEqual([prompt])

    const fresh = await run.newSession()
    await run.prompt(fresh, 'in a new session')
    const [newer] = systemOf(run, 'in a new session')
    expect(newer).toContain('PROJECT v2: use pnpm.')
    expect(newer).not.toContain('PROJECT v1')

    const reload = await run.prompt(parent, '/reload-instructions')
    expect(reload.stopReason).toBe('end_turn')
    await run.prompt(parent, 'after the reload')
    expect(systemOf(run, 'after the reload')).toEqual([newer])

    const events = run.loggedEvents(parent).filter((e) => e.type === 'instructions:set')
    expect(events).toHaveLength(2)
    expect(events[0]?.data).toMatchObject({ gitRoot: run.cwd, gitBranch: 'trunk', shell: '/bin/sh' })
  })

  it('cuts an AGENTS.md over the size limit and says so in the prompt', async () => {
    const run = await start({ script: conversationModel(CONVERSATION).script })
    writeFileSync(join(run.cwd, 'AGENTS.md'), `START ${'x'.repeat(40 * 1024)} END`)
    const sessionId = await run.newSession()
    await run.prompt(sessionId, REMEMBER)
    const [prompt] = systemOf(run, REMEMBER)
    expect(prompt).toContain('START ')
    expect(prompt).not.toContain(' END')
    expect(prompt).toContain(`[Cut: only the first 32768 of this file's ${40 * 1024 + 10} bytes are here`)
  })
})
