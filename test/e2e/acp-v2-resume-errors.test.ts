import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { failure, v2TestAgent } from '../support/v2/v2-test-agent.js'

const agents = v2TestAgent('dsh-v2-resume-errors-')

describe('ACP v2 session/resume refusals name session/resume, the method the client called', () => {
  it('a relative cwd, another directory, a missing cwd: with and without a replay', async () => {
    const { agent: a, dir } = agents.start((dir) => ['--store', join(dir, 'store'), '--model', 'echo'])
    const project = join(dir, 'project')
    const other = join(dir, 'other')
    mkdirSync(project)
    mkdirSync(other)
    await a.initialize()
    const { sessionId } = await a.agent.request('session/new', { cwd: project })
    const resume = (params: Record<string, unknown>) =>
      failure(a.agent.request('session/resume', JSON.parse(JSON.stringify({ sessionId, ...params }))))
    for (const replay of [{ replayFrom: { type: 'start' } }, {}]) {
      const relative = await resume({ cwd: 'project', ...replay })
      expect(relative).toEqual({
        code: -32602,
        message: 'session/resume: cwd must be an absolute path, got "project"',
      })
      const elsewhere = await resume({ cwd: other, ...replay })
      expect(elsewhere?.code).toBe(-32602)
      expect(elsewhere?.message).toMatch(/^session\/resume: cwd ".*other" is not the directory of session /)
      const missing = await resume({ ...replay })
      expect(missing?.code).toBe(-32602)
      expect(missing?.message).toMatch(/^session\/resume: /)
      expect(missing?.message).toContain('cwd')
      for (const refused of [relative, elsewhere, missing])
        expect(refused?.message).not.toContain('session/load')
    }
    // The session is untouched: it resumes with its own directory.
    const resumed = await a.agent.request('session/resume', {
      sessionId,
      cwd: project,
      replayFrom: { type: 'start' },
    })
    expect(resumed).toBeDefined()
  })
})
