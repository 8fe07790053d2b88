import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { newSession, text } from '../support/snapshot-client.js'
import { publishedSchemaErrors } from '../support/snapshot-schemas.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Turn 1 ends normally, turn 2 fails, turn 3 waits until it is cancelled, turn 4 ends normally. */
function script(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-turn-ends-'))
  dirs.push(dir)
  const file = join(dir, 'model.json')
  const turns = [
    [[{ text: 'fine' }]],
    [[{ text: 'partial' }, { error: 'the scripted model broke' }]],
    [[{ text: 'slow' }, { delayMs: 60_000 }]],
    [[{ text: 'after' }]],
  ]
  writeFileSync(file, JSON.stringify({ turns }))
  return `script:${file}`
}

type TurnEnd = { seq: number; reason: string; stopReason?: string; error?: string }
const turnEndOf = (n: acp.SessionNotification) =>
  (n._meta as { dsh?: { turnEnd?: TurnEnd } } | undefined)?.dsh?.turnEnd

describe('a session/load replay marks how each turn ended (_meta.dsh.turnEnd on its last update)', () => {
  it('ended, failed, cancelled: each replayed turn says so, and nothing is replayed that was not sent live', async () => {
    const model = script()
    const first = new AgentProcess({ args: ['--model', model] })
    await first.initialize()
    const sessionId = await newSession(first)
    const ask = (words: string) => first.agent.request('session/prompt', { sessionId, prompt: [text(words)] })
    await ask('one')
    await expect(ask('two')).rejects.toMatchObject({
      message: expect.stringContaining('scripted model broke'),
    })
    const slow = ask('three')
    const chunkArrived = () =>
      first.updates.some(
        (n) =>
          n.update.sessionUpdate === 'agent_message_chunk' &&
          (n.update.content as { text?: string }).text === 'slow',
      )
    while (!chunkArrived()) await new Promise((done) => setImmediate(done))
    await first.agent.notify('session/cancel', { sessionId })
    expect((await slow).stopReason).toBe('cancelled')
    await ask('four')
    const live = first.updates.filter(
      (n) => n.sessionId === sessionId && n.update.sessionUpdate !== 'available_commands_update',
    )
    await first.stop()

    const agent = new AgentProcess({ storeDir: first.storeDir, args: ['--model', model] })
    await agent.initialize()
    await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    await agent.stop()
    first.cleanup()
    expect(agent.audit.problems).toEqual([])
    const replay = agent.updates.filter(
      (n) => n.sessionId === sessionId && n.update.sessionUpdate !== 'available_commands_update',
    )
    const marks = replay.map(turnEndOf).filter((mark) => mark !== undefined)
    expect(marks).toEqual([
      { seq: expect.any(Number), reason: 'completed', stopReason: 'end_turn' },
      { seq: expect.any(Number), reason: 'error', error: expect.stringContaining('scripted model broke') },
      { seq: expect.any(Number), reason: 'cancelled', stopReason: 'cancelled' },
      { seq: expect.any(Number), reason: 'completed', stopReason: 'end_turn' },
    ])
    // Each mark is on its turn's last update: the next replayed update is the next turn's prompt.
    replay.forEach((n, i) => {
      if (turnEndOf(n) !== undefined && i + 1 < replay.length)
        expect(replay[i + 1]?.update.sessionUpdate).toBe('user_message_chunk')
    })
    // Besides the prompts (which the client sent), the replay shows what was sent live, in order:
    // no message is added for an ending.
    const kinds = (updates: acp.SessionNotification[]) =>
      updates.map((n) => n.update.sessionUpdate).filter((kind) => kind !== 'user_message_chunk')
    expect(kinds(replay)).toEqual(kinds(live))
    for (const n of replay)
      expect(publishedSchemaErrors('acp-meta', (n._meta as { dsh: unknown }).dsh, 'sessionUpdate')).toEqual(
        [],
      )
  })
})
