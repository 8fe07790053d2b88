import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'

// Issue 34 item 1: a cut one process makes must never meet a view another process holds. Process
// B loads a session; process A rewinds it (a cut) and writes a new turn that makes the file a few
// bytes longer than B's view. On 0.3, B's pen took the bytes after its stale end for a torn tail,
// cut them and appended there: two events on one line, a session no load could open again.

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

const resources = testResources()

async function start(storeDir: string): Promise<AgentProcess> {
  const agent = resources.start({ storeDir })
  await agent.initialize()
  return agent
}

function prompt(agent: AgentProcess, sessionId: string, words: string) {
  return agent.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
}

/** Every line of the file is one JSON value, the events' seqs contiguous from 1. */
function expectWhole(path: string): void {
  const content = readFileSync(path, 'utf8')
  expect(content.endsWith('\n')).toBe(true)
  const lines = content.slice(0, -1).split('\n').slice(1)
  const seqs = lines.map((line, i) => {
    try {
      return (JSON.parse(line) as { seq: number }).seq
    } catch {
      throw new Error(`line ${i + 2} of ${path} is not one event: ${line.slice(0, 200)}`)
    }
  })
  expect(seqs).toEqual(seqs.map((_, i) => i + 1))
}

async function rejection(promise: Promise<unknown>): Promise<{ code: number } | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return error as { code: number }
  }
}

describe('cuts under several processes (issue 34, item 1)', () => {
  it('a rewind elsewhere that regrows the file past a stale view is never cut into', async () => {
    const dir = resources.tempDir('dsh-acp-cuts-')
    const a = await start(dir)
    const { sessionId } = await a.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const path = join(dir, `${sessionId}.jsonl`)
    await prompt(a, sessionId, 'one')
    await prompt(a, sessionId, 'two')
    const b = await start(dir)
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const stale = statSync(path).size

    // A rewinds the second turn away and writes it again, a few bytes longer: the file now ends
    // just past where B's view ends, inside A's last line.
    const { points } = await a.agent.request<{ points: { messageId: string }[] }>('_session/rewind_points', {
      sessionId,
    })
    const messageId = (points[1] as { messageId: string }).messageId
    await a.agent.request('_session/rewind', { sessionId, messageId, mode: 'conversation' })
    await prompt(a, sessionId, 'twoo')
    const grown = statSync(path).size
    expect(grown).toBeGreaterThan(stale)
    // Past the rewind's marker line (written after the kept events), it ends just past B's view.
    const marker = readFileSync(path, 'utf8')
      .split('\n')
      .find((line) => line.includes('"type":"rewind:marker"'))
    expect(marker).toBeDefined()
    expect(grown - stale - Buffer.byteLength(`${marker}\n`)).toBeLessThan(40)

    // B writes: it must see the file is not its view any more (-32015: load it again), or write
    // after A's events; either way the file stays one event per line.
    const refused = await rejection(prompt(b, sessionId, 'three'))
    if (refused) expect(refused.code).toBe(-32015)
    expectWhole(path)
    await b.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    await prompt(b, sessionId, 'three')
    expectWhole(path)
    const checker = await start(dir)
    await checker.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    expect(checker.audit.problems).toEqual([])
  })
})
