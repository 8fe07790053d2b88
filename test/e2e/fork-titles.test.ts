import { describe, expect, it } from 'vitest'
import { completionStream } from '../support/fake-openai.js'
import { openAiAgents } from '../support/openai-agent.js'

/**
 * A fork child's title: sent to a client when it changes for that client, once (a resume after
 * the fork does not repeat it, nor does the child's prompt); a fork of a fork is "x (fork)" too.
 */
const start = openAiAgents()

describe('fork titles', () => {
  it('a fork, a resume and a prompt of the child send its title once; the fork of a fork is "x (fork)"', async () => {
    const say = { stream: completionStream({ text: 'ok' }) }
    const run = await start({ script: [say, say, say] })
    const parent = await run.newSession()
    await run.prompt(parent, 'x')
    const fork = async (sessionId: string) =>
      (await run.agent.agent.request('session/fork', { sessionId, cwd: run.cwd, mcpServers: [] })).sessionId
    const child = await fork(parent)
    await run.agent.agent.request('session/resume', { sessionId: child, cwd: run.cwd, mcpServers: [] })
    await run.agent.agent.request('session/resume', { sessionId: child, cwd: run.cwd, mcpServers: [] })
    await run.prompt(child, 'y')
    const grandchild = await fork(child)
    await run.prompt(grandchild, 'z')
    const titles = (sessionId: string) =>
      run
        .updatesOf(sessionId)
        .flatMap(({ update }) => (update.sessionUpdate === 'session_info_update' ? [update.title] : []))
    expect(titles(child)).toEqual(['x (fork)'])
    expect(titles(grandchild)).toEqual(['x (fork)'])
    const { sessions } = await run.agent.agent.request('session/list', {})
    expect(sessions.find((s) => s.sessionId === grandchild)?.title).toBe('x (fork)')
  })
})
