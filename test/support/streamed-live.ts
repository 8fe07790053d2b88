import type * as acp from '@agentclientprotocol/sdk/unstable'
import { expect } from 'vitest'
import { agentText } from '../e2e/updates.js'
import type { AgentProcess } from './agent-process.js'
import { dshOf, endsTurn, until } from './live-updates.js'

const presenceOf = (u: acp.SessionNotification) =>
  (u.update as { _meta?: { dsh?: { presence?: { attached?: number } } } })._meta?.dsh?.presence

/** The model of the turn {@link expectStreamedLive} runs: three chunks, then a step that waits. */
export const STREAMING_MODEL = {
  turns: [
    [[{ text: 'streamed ' }, { text: 'as it ' }, { text: 'comes' }, { delayMs: 60_000 }, { text: ' never' }]],
  ],
}

/**
 * The contract of a turn's text across processes (or hosts): `a` runs {@link STREAMING_MODEL} on
 * `sessionId`, which `b` (another process on the same store) has open. B's client sees the text
 * stream in while A's model still waits in its step, before the step's message is in the log;
 * after A's client cancels, B holds the text once, in log order, every wire line valid.
 */
export async function expectStreamedLive(a: AgentProcess, b: AgentProcess, sessionId: string): Promise<void> {
  // A streams to other processes it knows are attached: it knows B once it shows its client B's
  // presence (B's note on the board).
  await until(a, (u) => presenceOf(u)?.attached === 2)
  const loaded = b.updates.length
  let answered = false
  const running = a.agent
    .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream it' }] })
    .finally(() => {
      answered = true
    })
  // Each chunk goes out once the next one came (the last waits for its event): the first two
  // reach B while A's model waits in its step.
  const isChunk = (words: string) => (u: acp.SessionNotification) =>
    u.update.sessionUpdate === 'agent_message_chunk' &&
    u.update.content.type === 'text' &&
    u.update.content.text === words
  await until(b, isChunk('as it '), loaded)
  expect(answered).toBe(false)
  expect(b.updates.slice(loaded).findIndex(isChunk('streamed '))).toBeLessThan(
    b.updates.slice(loaded).findIndex(isChunk('as it ')),
  )
  await a.agent.notify('session/cancel', { sessionId })
  const done = await running
  expect(done.stopReason).toBe('cancelled')
  const endSeq = (done._meta as { dsh: { seq: number } }).dsh.seq
  await until(b, endsTurn(endSeq), loaded)
  const live = b.updates.slice(loaded).filter((u) => u.sessionId === sessionId)
  expect(agentText(live)).toBe('streamed as it comes')
  const seqs = live.map((u) => dshOf(u)?.seq).filter((s) => s !== undefined)
  expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
  expect([...a.audit.problems, ...b.audit.problems]).toEqual([])
}
