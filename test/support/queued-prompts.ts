import type * as acp from '@agentclientprotocol/sdk/unstable'
import { expect } from 'vitest'
import type { AgentProcess } from './agent-process.js'

// Prompts that wait in line behind a turn another process or host runs (`_meta.dsh.queued`), as
// multi-process.test.ts (JSONL) and postgres-live.test.ts (PostgreSQL) drive them.

/** A prompt's place in line as its client is told (`_meta.dsh.queued`). */
export type Queued = { messageId: string; state: string; position?: number }

const queuedOf = (u: acp.SessionNotification) =>
  (u.update._meta as { dsh?: { queued?: Queued } } | undefined)?.dsh?.queued

/**
 * The first `_meta.dsh.queued` notice of `sessionId` the agent sent from index `from` on in `state`
 * (of a message other than `not`); rejects with the agent's stderr if it exits first.
 */
export async function queuedNotice(
  agent: AgentProcess,
  sessionId: string,
  from: number,
  state: string,
  not?: string,
): Promise<Queued> {
  for (;;) {
    const found = agent.updates
      .slice(from)
      .filter((u) => u.sessionId === sessionId)
      .map(queuedOf)
      .find((q) => q !== undefined && q.state === state && q.messageId !== not)
    if (found) return found
    if (agent.child.exitCode !== null) throw new Error(`agent exited: ${agent.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * While another process holds the session's pen, `agent`'s client prompts twice: both wait in
 * line (queued at positions 1 and 2, listed by `_session/runtime/read`), and the second is taken
 * back (`cancelQueuedMessage`: answered `cancelled`). Resolves the first prompt's answer (still
 * waiting) and its place in line.
 */
export async function queueTwoTakeBackSecond(
  agent: AgentProcess,
  sessionId: string,
  words: readonly [string, string],
): Promise<{ waiting: Promise<acp.PromptResponse>; first: Queued }> {
  const from = agent.updates.length
  const prompt = (text: string) =>
    agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
  const waiting = prompt(words[0])
  const first = await queuedNotice(agent, sessionId, from, 'queued')
  expect(first).toMatchObject({ state: 'queued', position: 1 })
  const takenBack = prompt(words[1])
  const second = await queuedNotice(agent, sessionId, from, 'queued', first.messageId)
  expect(second.position).toBe(2)
  const read = await agent.agent.request('_session/runtime/read', { sessionId, resource: 'queuedMessages' })
  expect(read).toMatchObject({
    queuedMessages: [
      { messageId: first.messageId, position: 1 },
      { messageId: second.messageId, position: 2 },
    ],
  })
  const control = { sessionId, action: 'cancelQueuedMessage', messageId: second.messageId }
  expect(await agent.agent.request('_session/runtime/control', control)).toEqual({ cancelled: true })
  expect((await takenBack).stopReason).toBe('cancelled')
  return { waiting, first }
}
