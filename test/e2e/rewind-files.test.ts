import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { testResources } from '../support/test-resources.js'
import { agentText } from './updates.js'

/**
 * `/rewind` (issue 24) undoes the conversation and puts back the files the built-in tools changed
 * in the undone turns; a file changed since by someone else is left as it is and named.
 */

const resources = testResources()

const write = (path: string, content: string) => ({
  toolCall: { name: 'write_text_file', input: { path, content } },
})

async function started(turns: unknown): Promise<{ agent: AgentProcess; cwd: string; sessionId: string }> {
  const base = realpathSync(resources.tempDir('dsh-acp-rewind-files-'))
  const cwd = join(base, 'project')
  mkdirSync(cwd)
  writeFileSync(join(cwd, 'kept.txt'), 'before\n')
  const model = join(base, 'model.json')
  writeFileSync(model, JSON.stringify({ turns }))
  const agent = resources.start({
    storeDir: join(base, 'store'),
    cwd,
    args: ['--model', `script:${model}`],
    setupClient: (app) => {
      app.onRequest('session/request_permission', () => ({
        outcome: { outcome: 'selected', optionId: 'allow_once' },
      }))
    },
  })
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
  return { agent, cwd, sessionId }
}

const prompt = (agent: AgentProcess, sessionId: string, text: string) =>
  agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })

describe('/rewind restores the files', () => {
  it('puts back an edited file and removes a created one, and says so', async () => {
    const { agent, cwd, sessionId } = await started([
      [[{ text: 'nothing yet' }]],
      [[write('kept.txt', 'after\n'), write('new.txt', 'made\n')], [{ text: 'changed two files' }]],
    ])
    await prompt(agent, sessionId, 'look')
    await prompt(agent, sessionId, 'change them')
    expect(readFileSync(join(cwd, 'kept.txt'), 'utf8')).toBe('after\n')
    const from = agent.updates.length
    expect((await prompt(agent, sessionId, '/rewind')).stopReason).toBe('end_turn')
    expect(agentText(agent.updates.slice(from))).toContain(
      'Files the tools changed are put back (1 restored, 1 removed).',
    )
    expect(readFileSync(join(cwd, 'kept.txt'), 'utf8')).toBe('before\n')
    expect(existsSync(join(cwd, 'new.txt'))).toBe(false)
    expect(agent.audit.problems).toEqual([])
  })

  it('leaves a file someone else changed since, and names it', async () => {
    const { agent, cwd, sessionId } = await started([
      [[write('kept.txt', 'after\n')], [{ text: 'changed it' }]],
    ])
    await prompt(agent, sessionId, 'change it')
    writeFileSync(join(cwd, 'kept.txt'), 'the user edited this\n')
    const from = agent.updates.length
    await prompt(agent, sessionId, '/rewind')
    expect(agentText(agent.updates.slice(from))).toContain(`Left as they are: ${join(cwd, 'kept.txt')}`)
    expect(readFileSync(join(cwd, 'kept.txt'), 'utf8')).toBe('the user edited this\n')
  })
})
