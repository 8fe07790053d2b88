import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { ASK, capable, childOf, editor, REMEMBER } from '../support/subagent-conversation.js'

/**
 * Fork-based subagents end to end, `session/load` of a parent that delegated: the replay shows
 * what the client saw live, and a child whose log is gone or corrupt does not break it.
 */

const start = openAiAgents()

describe('session/load of a parent that delegated, with the subagents capability', () => {
  const kindOf = (n: acp.SessionNotification) => n.update.sessionUpdate
  /** From the parent's delegate tool_call to its result: what a client saw of the delegation. */
  const delegation = (updates: readonly acp.SessionNotification[]) => {
    const isDelegate = (n: acp.SessionNotification) =>
      (n.update as { toolCallId?: string }).toolCallId === 'call_d'
    const first = updates.findIndex((n) => isDelegate(n) && kindOf(n) === 'tool_call')
    const last = updates.findLastIndex(
      (n) => isDelegate(n) && (n.update as { status?: string }).status === 'completed',
    )
    return updates.slice(first, last + 1)
  }

  it('after a restart the replay shows what the client saw live: subagent_update, the child’s own updates, subagent_update idle; the same updates in the same order', async () => {
    const client = editor()
    const run = await start(capable(client))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    const from = run.agent.updates.length
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const live = delegation(run.agent.updates.slice(from))

    await run.restart()
    const before = run.agent.updates.length
    await run.agent.agent.request('session/load', { sessionId: parent, cwd: run.cwd, mcpServers: [] })
    const replayed = delegation(run.agent.updates.slice(before))
    // A replay shows each tool call's end, not the live `in_progress` step (as every load does),
    // nor the live diff shown while the permission question was pending.
    const liveOnly = (n: (typeof live)[number]) =>
      n.update.sessionUpdate === 'tool_call_update' &&
      ['in_progress', 'pending'].includes(String((n.update as { status?: string }).status))
    const expected = live.filter((n) => !(n.sessionId === child.sessionId && liveOnly(n)))
    expect(replayed).toEqual(expected)
    expect(replayed.map((n) => [n.sessionId === parent ? 'parent' : 'child', kindOf(n)])).toEqual([
      ['parent', 'tool_call'],
      ['parent', 'subagent_update'],
      ['parent', 'tool_call_update'],
      ['child', 'user_message_chunk'],
      ['child', 'tool_call'],
      ['child', 'tool_call_update'],
      ['child', 'agent_message_chunk'],
      ['parent', 'subagent_update'],
      ['parent', 'tool_call_update'],
    ])
    expect((replayed[7]?.update as { state?: unknown } | undefined)?.state).toEqual({
      state: 'idle',
      stopReason: 'end_turn',
    })
    // Nothing was asked or written again, and the child was only read, not loaded (no lock taken).
    expect(client.asked).toHaveLength(1)
    expect(existsSync(join(run.storeDir, `${child.sessionId}.lock`))).toBe(false)
    await expectCleanExit(run)
  })

  it('a child whose file is gone or corrupt: the replay completes, the child’s state `unknown` with the reason', async () => {
    const run = await start(capable(editor()))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const childFile = join(run.storeDir, `${child.sessionId}.jsonl`)
    const lines = readFileSync(childFile, 'utf8').split('\n')
    const seed = (child._meta as { dsh: { seedLength: number } }).dsh.seedLength

    const stateAfterLoad = async () => {
      await run.restart()
      const before = run.agent.updates.length
      const answer = await run.agent.agent.request('session/load', {
        sessionId: parent,
        cwd: run.cwd,
        mcpServers: [],
      })
      expect(answer.configOptions).toBeDefined()
      const replayed = delegation(run.agent.updates.slice(before))
      expect(replayed.map(kindOf)).toContain('subagent_update')
      const subagentUpdates = replayed.filter((n) => kindOf(n) === 'subagent_update')
      expect(subagentUpdates.map((n) => n.sessionId)).toEqual([parent, parent])
      expect(replayed.at(-1)?.update).toMatchObject({ toolCallId: 'call_d', status: 'completed' })
      return {
        replayed,
        state: (
          subagentUpdates[1]?.update as { state?: { _meta?: { dsh?: { reason?: string } } } } | undefined
        )?.state,
      }
    }

    // A bad line inside the child's delegated turn (not its last): what came before it is shown.
    writeFileSync(childFile, [...lines.slice(0, seed + 3), '{not json', ...lines.slice(seed + 3)].join('\n'))
    const corrupt = await stateAfterLoad()
    expect(corrupt.state).toMatchObject({ state: 'unknown' })
    expect(corrupt.state?._meta?.dsh?.reason).toContain(
      `the log of subagent ${child.sessionId} could not be read`,
    )
    expect(corrupt.state?._meta?.dsh?.reason).toContain(`:${seed + 4}:`)
    expect(corrupt.replayed.filter((n) => n.sessionId === child.sessionId).map(kindOf)).toEqual([
      'user_message_chunk',
    ])

    rmSync(childFile)
    const gone = await stateAfterLoad()
    expect(gone.state).toMatchObject({ state: 'unknown' })
    expect(gone.state?._meta?.dsh?.reason).toContain(`session ${child.sessionId} not found`)
    expect(gone.replayed.filter((n) => n.sessionId === child.sessionId)).toEqual([])
    await expectCleanExit(run)
  })
})
