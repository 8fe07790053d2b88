import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { testResources } from '../support/test-resources.js'

/**
 * ACP makes `cwd` the session's working directory (the file tools confine to it): `session/new`,
 * `load`, `resume` and `fork` refuse one that does not exist or is not a directory with -32602
 * naming the path. A stored session whose directory has since gone stays listed and deletable,
 * and loads again once the directory is back.
 */

const resources = testResources()

const tempDir = (name: string): string => resources.tempDir(`dsh-acp-cwd-${name}-`)

async function started(storeDir: string): Promise<AgentProcess> {
  const agent = resources.start({ storeDir })
  await agent.initialize()
  return agent
}

describe('a session cwd must be an existing directory', () => {
  it('session/new refuses a missing path or a file with -32602 naming the path, and stores nothing', async () => {
    const store = tempDir('store')
    const work = tempDir('work')
    const missing = join(work, 'not-there')
    const file = join(work, 'a-file')
    writeFileSync(file, '')
    const agent = await started(store)
    for (const [cwd, why] of [
      [missing, 'does not exist'],
      [join(missing, 'deeper'), 'does not exist'],
      [join(file, 'below'), 'does not exist'],
      [file, 'is not a directory'],
    ] as const) {
      await expect(agent.agent.request('session/new', { cwd, mcpServers: [] }), cwd).rejects.toMatchObject({
        code: -32602,
        message: `session/new: cwd ${JSON.stringify(cwd)} ${why}`,
        data: { field: 'cwd', cwd },
      })
    }
    expect(readdirSync(store)).toEqual([])
    expect((await agent.agent.request('session/list', {})).sessions).toEqual([])
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('session/new accepts a directory reached through a symlink, and keeps the path as sent', async () => {
    const work = tempDir('work')
    const real = join(work, 'real')
    mkdirSync(real)
    const link = join(work, 'link')
    symlinkSync(real, link)
    const agent = await started(tempDir('store'))
    const { sessionId } = await agent.agent.request('session/new', { cwd: link, mcpServers: [] })
    const { sessions } = await agent.agent.request('session/list', {})
    expect(sessions).toEqual([expect.objectContaining({ sessionId, cwd: link })])
    expect(await agent.stop()).toBe(0)
  })

  it('a stored session whose cwd vanished: listed, refused by load/resume/fork with nothing replayed, deletable; loads again once the directory is back', async () => {
    const store = tempDir('store')
    const project = join(tempDir('work'), 'project')
    mkdirSync(project)
    const first = await started(store)
    const { sessionId } = await first.agent.request('session/new', { cwd: project, mcpServers: [] })
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
    const { sessionId: other } = await first.agent.request('session/new', { cwd: project, mcpServers: [] })
    expect(await first.stop()).toBe(0)
    rmSync(project, { recursive: true })

    const second = await started(store)
    const listed = await second.agent.request('session/list', {})
    expect(listed.sessions.map((s) => [s.sessionId, s.cwd]).sort()).toEqual(
      [
        [sessionId, project],
        [other, project],
      ].sort(),
    )
    const refusal = (method: string) => ({
      code: -32602,
      message: `${method}: cwd ${JSON.stringify(project)} does not exist`,
      data: { field: 'cwd', cwd: project },
    })
    await expect(
      second.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] }),
    ).rejects.toMatchObject(refusal('session/load'))
    await expect(second.agent.request('session/resume', { sessionId, cwd: project })).rejects.toMatchObject(
      refusal('session/resume'),
    )
    await expect(
      second.agent.request('session/fork', { sessionId, cwd: project, mcpServers: [] }),
    ).rejects.toMatchObject(refusal('session/fork'))
    expect(second.updates).toEqual([])
    expect((await second.agent.request('session/list', {})).sessions).toHaveLength(2)
    expect(await second.agent.request('session/delete', { sessionId: other })).toEqual({})
    expect(existsSync(join(store, `${other}.jsonl`))).toBe(false)

    mkdirSync(project)
    await second.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] })
    expect(
      second.updates.some(
        (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk',
      ),
    ).toBe(true)
    expect(await second.stop()).toBe(0)
    expect([...first.audit.problems, ...second.audit.problems]).toEqual([])
  })
})
