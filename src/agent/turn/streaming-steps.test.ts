import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { ModelProvider } from '../types.js'

let ctx: Context | undefined
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
})

describe('a change made while a step streams', () => {
  it("waits for the step's message: the chunks' seq is the message's seq in the log", async () => {
    let resume = () => {}
    const paused = new Promise<void>((resolve) => {
      resume = resolve
    })
    const provider: ModelProvider = {
      name: 'paused',
      async *stream() {
        yield { type: 'text', text: 'hel' }
        await paused
        yield { type: 'text', text: 'lo' }
      },
    }
    ctx = await startAgent({ provider })
    const agent = ctx.agent
    const session = ctx.sessions.create()
    const req = request('hi')
    const running = agent.runTurn(session, req)
    const chunk = await req.waitFor((u) => u.update.sessionUpdate === 'agent_message_chunk')
    // Another client sets the mode while the message streams.
    const set = agent.setConfig(session, 'mode', 'read-only')
    resume()
    await running
    const config = await set
    const message = session.events().find((e) => e.type === 'assistant/message')
    expect(message?.seq).toBe(chunk.seq)
    expect(message?.data).toMatchObject({ content: 'hello' })
    expect(config?.seq).toBeGreaterThan(chunk.seq)
    expect(session.config.values.mode).toBe('read-only')
  })
})
