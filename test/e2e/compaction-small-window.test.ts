import { describe, expect, it } from 'vitest'
import { SUMMARY_INSTRUCTION } from '../../src/agent/compaction/summary-request.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { longPrompt, SmallWindowModel, smallWindowScript } from '../support/small-window.js'

/**
 * Issue 34 #14: on a model with a small window (14k tokens, the default --compact-at 0.8 and the
 * summary's reserve of a quarter of the window), the automatic compaction used to send a summary
 * request that left out the oldest messages, so the user's first request (the goal) never reached
 * the summary. The trigger now comes early enough for the whole conversation to fit.
 */

const start = openAiAgents()
const WINDOW = 14_000
const GOAL = 'GOAL-7731: rename every parser function to camelCase and keep the tests green'

describe('automatic compaction on a small window (issue 34 #14)', () => {
  it("the summary request holds the user's first request, and nothing was cut from its start", async () => {
    const model = new SmallWindowModel(WINDOW)
    const run = await start({
      script: smallWindowScript(model),
      args: ['--context-window', String(WINDOW), '--no-subagents'],
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, GOAL)).stopReason).toBe('end_turn')
    const compactions = () => run.loggedEvents(sessionId).filter((e) => e.type === 'context/compaction')
    let turns = 0
    while (compactions().length === 0 && turns < 80) {
      expect((await run.prompt(sessionId, longPrompt(++turns, 300))).stopReason).toBe('end_turn')
    }
    const [compaction] = compactions()
    expect(compaction?.data).toMatchObject({ trigger: 'auto' })
    expect(compaction?.data.droppedMessages).toBeUndefined()
    const summaryRequests = run.fake.requests.filter((r) => {
      const messages = (r.body as { messages?: { role: string; content: unknown }[] }).messages ?? []
      const last = messages.at(-1)
      return typeof last?.content === 'string' && last.content.startsWith(SUMMARY_INSTRUCTION.slice(0, 40))
    })
    expect(summaryRequests).toHaveLength(1)
    expect(JSON.stringify(summaryRequests[0]?.body)).toContain(GOAL)
    expect(model.seen.every((s) => s.promptTokens <= WINDOW)).toBe(true)
    await expectCleanExit(run)
  })
})
