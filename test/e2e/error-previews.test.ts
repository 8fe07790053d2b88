import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'

/**
 * Issue 34 #10: an error answer echoes at most a short preview of what was sent. A 20 MB id came
 * back as a 40 MB error (in the message and again in `data`); now every error is about a
 * kilobyte, still saying what failed.
 */

const HUGE = 'x'.repeat(20 * 1024 * 1024)
/** The longest error line any of these answers may take. */
const SHORT = 4096

const agents: AgentProcess[] = []
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop()
})

async function started(): Promise<{ agent: AgentProcess; sessionId: string }> {
  const agent = new AgentProcess()
  agents.push(agent)
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
  await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })
  return { agent, sessionId }
}

async function rejection(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise
  } catch (error) {
    return error as { code: number; message: string; data?: unknown }
  }
  throw new Error('expected a rejection')
}

/** The longest line the agent wrote that answers with an error. */
function longestErrorLine(agent: AgentProcess): number {
  const lines = agent.audit.entries.filter((e) => e.dir === 'out' && e.line.includes('"error"'))
  return Math.max(0, ...lines.map((e) => Buffer.byteLength(e.line)))
}

describe('errors echo a short preview of what was sent (issue 34 #10)', () => {
  it('a rewind to a 20 MB messageId is refused in a short error that still says why', async () => {
    const { agent, sessionId } = await started()
    const error = await rejection(
      agent.agent.request('_session/rewind', { sessionId, messageId: HUGE, mode: 'conversation' }),
    )
    expect(error.code).toBe(-32602)
    expect(error.message).toContain('holds no user message "xxxx')
    expect(error.message).toMatch(/characters left out/)
    expect(longestErrorLine(agent)).toBeLessThan(SHORT)
  })

  it('a 20 MB session id, config value or method name is answered as briefly', async () => {
    const { agent, sessionId } = await started()
    const load = await rejection(
      agent.agent.request('session/load', { sessionId: HUGE, cwd: agent.cwd, mcpServers: [] }),
    )
    expect(load.code).toBe(-32002)
    const mode = await rejection(agent.agent.request('session/set_mode', { sessionId, modeId: HUGE }))
    expect(mode.code).toBe(-32602)
    const method = await rejection(agent.agent.request(`_x/${HUGE}`, {}))
    expect(method.code).toBe(-32601)
    expect(longestErrorLine(agent)).toBeLessThan(SHORT)
    // The session is still served.
    const answer = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'again' }],
    })
    expect(answer.stopReason).toBe('end_turn')
  })
})
