import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'

let agent: V2AgentProcess | undefined
let dir: string | undefined
afterEach(async () => {
  await agent?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
  agent = dir = undefined
})

/** The request's error code and message; fails the test when the request succeeded. */
const failure = (request: Promise<unknown>) =>
  request.then(
    () => expect.fail('the request succeeded'),
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  )

describe('ACP v2 session/resume refusals name session/resume, the method the client called', () => {
  it('a relative cwd, another directory, a missing cwd: with and without a replay', async () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-v2-resume-errors-'))
    const project = join(dir, 'project')
    const other = join(dir, 'other')
    mkdirSync(project)
    mkdirSync(other)
    const a = new V2AgentProcess({ args: ['--store', join(dir, 'store'), '--model', 'echo'] })
    agent = a
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
      expect(elsewhere.code).toBe(-32602)
      expect(elsewhere.message).toMatch(/^session\/resume: cwd ".*other" is not the directory of session /)
      const missing = await resume({ ...replay })
      expect(missing.code).toBe(-32602)
      expect(missing.message).toMatch(/^session\/resume: /)
      expect(missing.message).toContain('cwd')
      for (const refused of [relative, elsewhere, missing])
        expect(refused.message).not.toContain('session/load')
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
