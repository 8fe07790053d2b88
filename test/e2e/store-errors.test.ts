import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'

const CWD = PROJECT_DIR
const resources = testResources()

const start = (storeDir: string): AgentProcess => resources.start({ storeDir })
const store = (): string => resources.tempDir('dsh-acp-store-errors-')

describe('store failures over the wire', () => {
  it('a session open (idle) in another process loads, forks and takes a prompt here; free of locks while idle', async () => {
    const dir = store()
    const first = start(dir)
    await first.initialize()
    const { sessionId } = await first.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const second = start(dir)
    await second.initialize()
    await second.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const forked = await second.agent.request('session/fork', { sessionId, cwd: CWD, mcpServers: [] })
    expect(forked._meta).toMatchObject({ dsh: { parentSession: sessionId } })
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    expect(existsSync(join(dir, `${sessionId}.lock`))).toBe(false)
    expect(await first.stop()).toBe(0)
    expect(await second.stop()).toBe(0)
    expect([...first.audit.problems, ...second.audit.problems]).toEqual([])
  })

  it('a corrupt session file is refused with -32012 naming the line; the file is left as it was', async () => {
    const dir = store()
    const writer = start(dir)
    await writer.initialize()
    const { sessionId } = await writer.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await writer.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })
    expect(await writer.stop()).toBe(0)
    const file = join(dir, `${sessionId}.jsonl`)
    const lines = readFileSync(file, 'utf8').split('\n')
    lines[2] = '{"seq":2,"type":"user/mess'
    const corrupted = lines.join('\n')
    writeFileSync(file, corrupted)

    const reader = start(dir)
    await reader.initialize()
    await expect(
      reader.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32012,
      message: expect.stringContaining('.jsonl:3:'),
      data: { code: 'CORRUPT_SESSION', sessionId, line: 3 },
    })
    expect(readFileSync(file, 'utf8')).toBe(corrupted)
    expect(await reader.stop()).toBe(0)
    expect(reader.audit.problems).toEqual([])
  })

  it('a corrupt line found after the replay began: the updates before it, then -32012; the session is not loaded', async () => {
    const dir = store()
    const writer = start(dir)
    await writer.initialize()
    const { sessionId } = await writer.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await writer.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] })
    await writer.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })
    expect(await writer.stop()).toBe(0)
    const file = join(dir, `${sessionId}.jsonl`)
    const lines = readFileSync(file, 'utf8').split('\n')
    const badLine = lines.findIndex((line) => line.includes('"turn":2')) + 1
    lines[badLine - 1] = '{"seq":'
    const corrupted = lines.join('\n')
    writeFileSync(file, corrupted)

    const reader = start(dir)
    await reader.initialize()
    await expect(
      reader.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32012, data: { code: 'CORRUPT_SESSION', sessionId, line: badLine } })
    const replayed = reader.updates.filter((u) => u.sessionId === sessionId)
    expect(replayed.map((u) => u.update.sessionUpdate)).toContain('user_message_chunk')
    const seqs = replayed.map((u) => (u._meta as { dsh: { seq: number } }).dsh.seq)
    expect(Math.max(...seqs)).toBeLessThan(badLine - 1)
    // Not live: a live session would be answered from memory; this one is read (and refused) again.
    await expect(
      reader.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32012 })
    expect(readFileSync(file, 'utf8')).toBe(corrupted)
    expect(await reader.stop()).toBe(0)
    expect(reader.audit.problems).toEqual([])
  })
})
