import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'

const ID = 'replay_bytes'
const TIME = '2026-01-01T00:00:00.000Z'
const long = (piece: string) => piece.repeat(Math.ceil(6000 / piece.length))

/**
 * A stored session with long strings of every kind a replay copies from the file: plain, with
 * escapes, non-ASCII, in prompts, answers, thoughts, tool inputs and outputs; and lines written
 * other than as `JSON.stringify` would write them (which a replay must serialize itself).
 */
function storedLines(): string[] {
  const lines = [JSON.stringify({ version: 1, id: ID, createdAt: TIME, cwd: PROJECT_DIR })]
  let seq = 0
  const add = (type: string, data: unknown) =>
    lines.push(JSON.stringify({ seq: ++seq, type, time: TIME, data }))
  for (const [turn, piece] of [
    [1, 'lorem ipsum '],
    [2, 'line\n\t"quoted" back\\slash é 😀 \u2028 \u0001 '],
    [3, 'ünïcödé テキスト '],
  ] as const) {
    add('turn/start', { turn })
    add('user/message', { turn, content: [{ type: 'text', text: long(`ask ${piece}`) }] })
    add('step/start', { turn, step: 1 })
    add('assistant/message', { turn, step: 1, content: long(piece), thought: long(`think ${piece}`) })
    add('tool/call', { turn, step: 1, callId: `c${turn}`, name: 'read', input: { path: long(piece) } })
    add('tool/result', { turn, step: 1, callId: `c${turn}`, output: long(`out ${piece}`) })
    add('step/end', { turn, step: 1 })
    add('turn/end', { turn, reason: 'completed' })
  }
  // Stored by another writer: escapes JSON.stringify does not write.
  const last = lines.length - 5
  lines[last] = (lines[last] as string).replaceAll('é', '\\u00e9').replaceAll(' ', '\\u0020')
  return lines
}

const { start, tempDir } = testResources()

/**
 * The raw lines the agent wrote while answering `request`: a load writes everything of the
 * session (the replay, the command list) before its answer.
 */
async function outputOf(agent: AgentProcess, request: () => Promise<unknown>): Promise<string[]> {
  const from = agent.audit.entries.length
  await request()
  return agent.audit.entries
    .slice(from)
    .filter((e) => e.dir === 'out')
    .map((e) => e.line)
}

describe('session/load of a stored session', () => {
  it.each([
    ['a client', {}],
    ['a client with the subagents capability', { subagents: {} }],
  ])(
    'writes the same bytes to %s whether its updates are copied from the file or serialized from memory',
    async (_who, capabilities) => {
      const storeDir = tempDir('dsh-acp-replay-bytes-')
      writeFileSync(join(storeDir, `${ID}.jsonl`), `${storedLines().join('\n')}\n`, { mode: 0o600 })
      const agent = start({ storeDir })
      await agent.initialize(capabilities as never)
      const load = () =>
        agent.agent.request('session/load', { sessionId: ID, cwd: PROJECT_DIR, mcpServers: [] })
      // First from the file (a fresh load streams what it reads), then from the live session.
      const fromFile = await outputOf(agent, load)
      const fromMemory = await outputOf(agent, load)
      const updates = (lines: string[]) => lines.filter((l) => l.includes('"_meta":{"dsh":{"seq":'))
      expect(updates(fromFile).length).toBeGreaterThan(15)
      expect(updates(fromFile)).toEqual(updates(fromMemory))
      expect(fromFile.join('\n')).toContain(
        JSON.stringify(long('line\n\t"quoted" back\\slash é 😀 \u2028 \u0001 ')),
      )
      expect(await agent.stop()).toBe(0)
      expect(agent.audit.problems).toEqual([])
    },
  )
})
