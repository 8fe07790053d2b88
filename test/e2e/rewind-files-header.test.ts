import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { testResources } from '../support/test-resources.js'

// Issue 34 items 3 and 11: a header is data, not authority. A session file whose header `cwd` (and
// checkpoint paths) were rewritten to name the workspace's parent must never make a rewind's file
// half act there: a restore acts only inside the cwd and directories a request named for the
// session, and a refusal says why.

const resources = testResources()

function start(base: string, cwd: string, model: string): AgentProcess {
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
  return agent
}

describe('a rewind never trusts the session file header', () => {
  it('with the header cwd rewritten to the parent, the file half refuses and touches nothing outside', async () => {
    const base = realpathSync(resources.tempDir('dsh-acp-rewind-header-'))
    const cwd = join(base, 'project')
    mkdirSync(cwd)
    const model = join(base, 'model.json')
    writeFileSync(
      model,
      JSON.stringify({
        turns: [
          [
            [{ toolCall: { name: 'write_text_file', input: { path: 'victim.txt', content: 'precious\n' } } }],
            [{ text: 'made it' }],
          ],
        ],
      }),
    )
    const first = start(base, cwd, model)
    await first.initialize()
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] })
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'make it' }] })
    expect(await first.stop()).toBe(0)

    // Someone rewrites the stored session: every mention of the workspace now names its parent,
    // where a file of the same content lives.
    const file = join(base, 'store', `${sessionId}.jsonl`)
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(JSON.stringify(cwd).slice(1, -1), base))
    const victim = join(base, 'victim.txt')
    writeFileSync(victim, 'precious\n')

    const second = start(base, cwd, model)
    await second.initialize()
    // The client's own cwd is refused: the header names another directory.
    await expect(
      second.agent.request('session/load', { sessionId, cwd, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
    })
    const { points } = await second.agent.request<{ points: { messageId: string }[] }>(
      '_session/rewind_points',
      {
        sessionId,
      },
    )
    const messageId = (points[0] as { messageId: string }).messageId
    const answer = await second.agent.request<{
      files: { canRewind: boolean; conflicts: { path: string; reason: string }[] }
    }>('_session/rewind', { sessionId, messageId, mode: 'files' })
    expect(existsSync(victim)).toBe(true)
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(answer.files.canRewind).toBe(false)
    expect(answer.files.conflicts).toEqual([
      { path: victim, reason: expect.stringContaining('no request named this session') },
    ])
    expect(answer.files.conflicts[0]?.reason).not.toContain('someone else')
  })
})
