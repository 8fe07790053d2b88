import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { expectCleanExit, type LoggedEvent, openAiAgents } from '../support/openai-agent.js'
import { longPrompt, SmallWindowModel, smallWindowScript } from '../support/small-window.js'

/**
 * Compaction against a fake model server with a 4,000-token window (bench/small-window-model.ts),
 * through the built binary: the automatic trigger, `/compact`, and the retry after the server
 * refuses a request as too long; each wire variant (with and without the client's
 * `session.compaction`), every message validated against the ACP schema by the wire audit.
 */

const start = openAiAgents()
const WINDOW = 4000
const COMPACTION_CAPABLE: acp.ClientCapabilities = { session: { compaction: {} } }

const compactionsOf = (events: readonly LoggedEvent[]) =>
  events.filter((e) => e.type === 'context/compaction')

const kinds = (updates: readonly acp.SessionNotification[]) =>
  updates
    .map((n) => n.update as { sessionUpdate: string; status?: string; kind?: string })
    .filter(
      (u) =>
        u.sessionUpdate.startsWith('compaction') ||
        u.kind === 'think' ||
        u.sessionUpdate === 'tool_call_update',
    )
    .map((u) => `${u.sessionUpdate}${u.status ? `:${u.status}` : ''}`)

describe('compaction against a small-window model server', () => {
  it('compacts by itself before a request past --compact-at of --context-window; nothing is refused; think tool call fallback', async () => {
    const model = new SmallWindowModel(WINDOW)
    const run = await start({
      script: smallWindowScript(model),
      args: ['--context-window', String(WINDOW), '--compact-at', '0.6', '--no-subagents'],
    })
    const sessionId = await run.newSession()
    let turns = 0
    while (compactionsOf(run.loggedEvents(sessionId)).length === 0 && turns < 8) {
      expect((await run.prompt(sessionId, longPrompt(++turns))).stopReason).toBe('end_turn')
    }
    const [compaction] = compactionsOf(run.loggedEvents(sessionId))
    expect(compaction?.data).toMatchObject({ trigger: 'auto', model: 'fake-model-1' })
    expect(model.seen.every((s) => s.promptTokens <= WINDOW)).toBe(true)
    // The summary request came right before the turn's own request, which starts with the summary.
    const summaryAt = model.seen.findIndex((s) => s.summary)
    expect(summaryAt).toBe(model.seen.length - 2)
    const after = run.fake.requests.at(-1)?.body as { messages: { role: string; content: string }[] }
    expect(after.messages[1]?.content).toContain(String(compaction?.data.summary))
    expect(after.messages.map((m) => m.role)).toEqual(['system', 'user', 'user'])
    expect(kinds(run.updatesOf(sessionId)).filter((k) => k.startsWith('tool_call'))).toEqual([
      'tool_call:in_progress',
      'tool_call_update:completed',
    ])
    // Later turns go on from the compacted view.
    expect((await run.prompt(sessionId, 'and now?')).stopReason).toBe('end_turn')
    await expectCleanExit(run)
  })

  it('retries a step the server refused as too long (context_length_exceeded) after compacting, once', async () => {
    const model = new SmallWindowModel(WINDOW)
    const run = await start({
      script: smallWindowScript(model),
      args: ['--context-window', String(WINDOW), '--compact-at', 'off', '--no-subagents'],
      clientCapabilities: COMPACTION_CAPABLE,
    })
    const sessionId = await run.newSession()
    let turns = 0
    while (!model.seen.some((s) => s.promptTokens > WINDOW) && turns < 10) {
      expect((await run.prompt(sessionId, longPrompt(++turns))).stopReason).toBe('end_turn')
    }
    const refused = model.seen.findIndex((s) => s.promptTokens > WINDOW)
    expect(refused).toBeGreaterThan(0)
    expect(model.seen[refused + 1]?.summary).toBe(true)
    expect(model.seen[refused + 2]?.promptTokens).toBeLessThanOrEqual(WINDOW)
    const [compaction] = compactionsOf(run.loggedEvents(sessionId))
    expect(compaction?.data).toMatchObject({ trigger: 'context-length' })
    const updates = run.updatesOf(sessionId)
    expect(kinds(updates).filter((k) => k.startsWith('compaction'))).toEqual([
      'compaction_update:in_progress',
      'compaction_summary_chunk',
      'compaction_update:completed',
    ])
    await expectCleanExit(run)
  })

  it('/compact with the capability streams compaction updates; a load replays one completed compaction_update in its place', async () => {
    const model = new SmallWindowModel(WINDOW)
    const run = await start({
      script: smallWindowScript(model),
      args: ['--context-window', String(WINDOW), '--no-subagents'],
      clientCapabilities: COMPACTION_CAPABLE,
    })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'first')
    await run.prompt(sessionId, '/compact keep the file names')
    await run.prompt(sessionId, 'second')
    expect(model.seen.filter((s) => s.summary)).toHaveLength(1)
    const summaryBody = run.fake.requests.find((_, i) => model.seen[i]?.summary)?.rawBody ?? ''
    expect(summaryBody).toContain('The user adds: keep the file names')
    await run.restart()
    const replay = await run.replay(sessionId)
    const texts = replay.map((n) => {
      const u = n.update as { sessionUpdate: string; content?: { text?: string }; status?: string }
      return u.sessionUpdate === 'compaction_update'
        ? `compaction:${u.status}`
        : (u.content?.text ?? u.sessionUpdate)
    })
    const at = texts.indexOf('compaction:completed')
    expect(texts.filter((t) => t.startsWith('compaction'))).toEqual(['compaction:completed'])
    expect(texts.indexOf('/compact keep the file names')).toBeLessThan(at)
    expect(texts.indexOf('second')).toBeGreaterThan(at)
    await expectCleanExit(run)
  })
})
