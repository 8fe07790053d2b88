import { describe, expect, it } from 'vitest'
import type { ModelMessage } from '../../session/index.js'
import { fitSummaryRequest, summaryInstruction } from './summary-request.js'
import { triggerLimit } from './turn-compaction.js'

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] })
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: text, toolCalls: [] })

describe('the summary request on a small window (issue 34 #14)', () => {
  it("keeps the user's first request when older messages must go", async () => {
    const filler = 'word '.repeat(400)
    const messages = [
      user('GOAL: the first request'),
      ...Array.from({ length: 10 }, (_, i) => [user(`${i} ${filler}`), assistant(`${i} ${filler}`)]).flat(),
      user(summaryInstruction()),
    ]
    const fitted = await fitSummaryRequest(messages, { system: '', cwd: '/', tools: [] }, 2000)
    expect(fitted.droppedMessages).toBeGreaterThan(0)
    expect(fitted.messages[0]).toEqual(user('GOAL: the first request'))
    expect(fitted.messages.at(-1)).toEqual(user(summaryInstruction()))
  })

  it('triggers early enough on a small window that the summary request holds the whole conversation', () => {
    expect(triggerLimit(14_000, 0.8)).toBeLessThan(14_000 - 3500)
    expect(triggerLimit(200_000, 0.8)).toBe(160_000)
  })
})
