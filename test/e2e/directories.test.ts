import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { testResources } from '../support/test-resources.js'

const resources = testResources()

/** A scripted model that reads `path` with the real read_text_file tool on each of two turns. */
function readingModel(base: string, paths: readonly string[]): string {
  const turns = paths.map((path) => [
    [{ toolCall: { name: 'read_text_file', input: { path } } }],
    [{ text: 'read' }],
  ])
  const file = join(base, 'model.json')
  writeFileSync(file, JSON.stringify({ turns }))
  return `script:${file}`
}

const toolOutputs = (agent: AgentProcess) =>
  agent.updates
    .filter((n) => n.update.sessionUpdate === 'tool_call_update')
    .map((n) => n.update as { status: string; rawOutput?: unknown })

describe('additionalDirectories', () => {
  it('are advertised, checked, stored with the session, and used by the file tools', async () => {
    const base = realpathSync(resources.tempDir('dsh-acp-dirs-'))
    const cwd = join(base, 'project')
    const extra = join(base, 'library')
    const elsewhere = join(base, 'elsewhere')
    for (const dir of [cwd, extra, elsewhere]) mkdirSync(dir)
    writeFileSync(join(extra, 'notes.txt'), 'from the library')
    writeFileSync(join(elsewhere, 'secret.txt'), 'not yours')
    const model = readingModel(base, [join(extra, 'notes.txt'), join(elsewhere, 'secret.txt')])
    const storeDir = join(base, 'store')
    const start = () => resources.start({ storeDir, args: ['--model', model] })

    const agent = start()
    const init = await agent.initialize()
    expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({})
    for (const bad of [['relative/dir'], [join(base, 'missing')], [join(extra, 'notes.txt')]]) {
      await expect(
        agent.agent.request('session/new', { cwd, mcpServers: [], additionalDirectories: bad }),
      ).rejects.toMatchObject({ code: -32602, data: { field: 'additionalDirectories[0]' } })
    }
    const { sessionId } = await agent.agent.request('session/new', {
      cwd,
      mcpServers: [],
      additionalDirectories: [extra],
    })
    await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read it' }] })
    expect(toolOutputs(agent).filter((u) => u.status !== 'in_progress')).toEqual([
      expect.objectContaining({ status: 'completed', rawOutput: 'from the library' }),
    ])
    expect(await agent.stop()).toBe(0)

    // After a restart the session still holds its directory; one outside every root stays refused.
    const second = start()
    await second.initialize()
    await second.agent.request('session/resume', { sessionId, cwd })
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and that' }] })
    const [refused] = toolOutputs(second).filter((u) => u.status !== 'in_progress')
    expect(refused?.status).toBe('failed')
    expect(JSON.stringify(refused?.rawOutput)).not.toContain('not yours')
    await expect(
      second.agent.request('session/resume', { sessionId, cwd, additionalDirectories: ['lib'] }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(await second.stop()).toBe(0)
    expect(second.audit.problems).toEqual([])
  })
})
