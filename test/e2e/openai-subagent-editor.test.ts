import { describe, expect, it } from 'vitest'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { agentRequests } from '../support/openai-wire.js'
import { conversationModel } from '../support/prefix-cache.js'
import {
  ASK,
  capable,
  childOf,
  editor,
  REMEMBER,
  TASK,
  WITH_WRITE,
} from '../support/subagent-conversation.js'
import type { WireEntry } from '../support/wire-audit.js'

/**
 * Fork-based subagents end to end, what the editor sees on the wire: with and without the
 * subagents client capability (the built binary, the official ACP client, a fake model).
 */

const start = openAiAgents()

/** Every message the agent wrote, parsed. */
const outgoing = (entries: readonly WireEntry[]) =>
  entries.filter((e) => e.dir === 'out').map((e) => e.message as Record<string, unknown>)

describe('what the editor sees', () => {
  it('without the subagents capability: only the parent’s tool call, its updates naming the child, permission on the parent', async () => {
    const client = editor()
    const run = await start({
      script: conversationModel(WITH_WRITE).script,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
      setupClient: client.setupClient,
    })
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    const from = run.agent.updates.length
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const messages = outgoing(run.agent.audit.entries)
    expect(
      messages.filter((m) => (m.params as { sessionId?: string })?.sessionId === child.sessionId),
    ).toEqual([])
    expect(JSON.stringify(messages)).not.toContain('subagent_update')
    const updates = run.agent.updates.slice(from)
    const delegateUpdates = updates.filter(
      (n) =>
        (n.update as { toolCallId?: string }).toolCallId === 'call_d' &&
        n.update.sessionUpdate === 'tool_call_update',
    )
    const progress = delegateUpdates.filter((n) => (n.update as { status?: string }).status === 'in_progress')
    expect(progress.map((n) => (n.update as { title?: string }).title)).toEqual(
      progress.map(() => 'Subagent: Recall'),
    )
    expect(progress.map((n) => (n.update as { _meta?: unknown })._meta)).toEqual(
      progress.map(() => ({ dsh: { subagent: { sessionId: child.sessionId } } })),
    )
    const texts = progress.map(
      (n) => (n.update as { content: { content: { text: string } }[] }).content[0]?.content.text,
    )
    expect(texts).toEqual([
      `Subagent ${child.sessionId} started: ${TASK}`,
      'Running: Write word.txt',
      'Done: Write word.txt',
    ])
    expect(delegateUpdates.at(-1)?.update).toMatchObject({ status: 'completed' })
    expect(client.asked).toEqual([
      expect.objectContaining({
        sessionId: parent,
        toolCall: expect.objectContaining({
          toolCallId: 'call_d',
          title: `Subagent Recall (${child.sessionId}): Write word.txt`,
          _meta: { dsh: { subagent: { sessionId: child.sessionId, toolCallId: 'call_w' } } },
        }),
      }),
    ])
    expect(client.writes.map((w) => w.sessionId)).toEqual([parent])
    await expectCleanExit(run)
  })

  it('with the subagents capability: subagent_update on the parent before any child traffic, then the child’s own updates and requests', async () => {
    const client = editor()
    const run = await start(capable(client))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const messages = outgoing(run.agent.audit.entries)
    const naming = messages.findIndex((m) => JSON.stringify(m).includes(child.sessionId))
    expect(messages[naming]).toMatchObject({
      method: 'session/update',
      params: {
        sessionId: parent,
        update: {
          sessionUpdate: 'subagent_update',
          sessionId: child.sessionId,
          title: 'Recall',
          description: TASK,
          state: { state: 'running' },
        },
      },
    })
    const childUpdates = run.agent.updates.filter((n) => n.sessionId === child.sessionId)
    expect(childUpdates.map((n) => n.update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'tool_call',
      'tool_call_update', // still pending, with the diff the user is asked about
      'tool_call_update', // in_progress
      'tool_call_update',
      'agent_message_chunk',
    ])
    const subagentUpdates = run.agent.updates.filter((n) => n.update.sessionUpdate === 'subagent_update')
    expect(subagentUpdates.map((n) => [n.sessionId, (n.update as { state?: unknown }).state])).toEqual([
      [parent, { state: 'running' }],
      [parent, { state: 'idle', stopReason: 'end_turn' }],
    ])
    expect(client.asked).toEqual([
      expect.objectContaining({
        sessionId: child.sessionId,
        toolCall: expect.objectContaining({ toolCallId: 'call_w', title: 'Write word.txt' }),
      }),
    ])
    expect(client.writes.map((w) => w.sessionId)).toEqual([child.sessionId])
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toHaveLength(1)
    await expectCleanExit(run)
  })
})
