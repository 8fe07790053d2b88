import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'
import { agentText } from './updates.js'

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })
const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-script-'))
const SLOW_SCRIPT = join(scriptDir, 'slow.json')
writeFileSync(
  SLOW_SCRIPT,
  JSON.stringify({
    turns: [
      [[{ text: 'working on it' }, { delayMs: 60_000 }, { text: ' never said' }]],
      [[{ text: 'second turn answer' }]],
    ],
  }),
)
const SHORT_SCRIPT = join(scriptDir, 'short.json')
writeFileSync(SHORT_SCRIPT, JSON.stringify({ turns: [[[{ text: 'a' }, { delayMs: 300 }, { text: 'b' }]]] }))

const DRIP_SCRIPT = join(scriptDir, 'drip.json')
writeFileSync(
  DRIP_SCRIPT,
  JSON.stringify({
    turns: [[Array.from({ length: 100 }, (_, i) => [{ text: `drop ${i} ` }, { delayMs: 50 }]).flat()]],
  }),
)

const { start } = testResources()
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

async function startWithSession(script: string, args: string[] = []) {
  const agent = start({ args: ['--model', `script:${script}`, ...args] })
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })
  return { agent, sessionId }
}

/** Resolves once the agent has streamed some text for this session. */
async function firstChunk(agent: AgentProcess, sessionId: string): Promise<void> {
  while (!agentText(agent.updates.filter((u) => u.sessionId === sessionId))) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function responsesTo(agent: AgentProcess, method: string): Record<string, unknown>[] {
  const ids = agent.audit.entries
    .filter((e) => e.dir === 'in' && (e.message as { method?: string })?.method === method)
    .map((e) => JSON.stringify((e.message as { id?: unknown }).id))
  return agent.audit.outgoing().filter((m) => !('method' in m) && ids.includes(JSON.stringify(m.id)))
}

describe('cancellation and concurrency over real stdio', () => {
  it('session/cancel stops a slow prompt: stopReason cancelled, the log stays usable', async () => {
    const { agent, sessionId } = await startWithSession(SLOW_SCRIPT)
    const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    await firstChunk(agent, sessionId)
    await agent.agent.notify('session/cancel', { sessionId })
    const result = await prompt
    expect(result.stopReason).toBe('cancelled')
    expect(agentText(agent.updates)).not.toContain('never said')
    const next = await agent.agent.request('session/prompt', { sessionId, prompt: [text('again')] })
    expect(next.stopReason).toBe('end_turn')
    expect(agentText(agent.updates)).toContain('second turn answer')
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('a second prompt while one runs is queued; a cancel of the running turn leaves it, and it runs next', async () => {
    const { agent, sessionId } = await startWithSession(SLOW_SCRIPT)
    const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    await firstChunk(agent, sessionId)
    const queued = agent.agent.request('session/prompt', { sessionId, prompt: [text('after it')] })
    while (!agent.updates.some((u) => u.update.sessionUpdate === 'session_info_update' && u.update._meta)) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await agent.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    expect((await queued).stopReason).toBe('end_turn')
    expect(agentText(agent.updates)).toContain('second turn answer')
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('$/cancel_request on a prompt ends the turn; the request still gets exactly one response', async () => {
    const { agent, sessionId } = await startWithSession(SLOW_SCRIPT)
    const controller = new AbortController()
    const prompt = agent.agent.request(
      'session/prompt',
      { sessionId, prompt: [text('go')] },
      { cancellationSignal: controller.signal },
    )
    await firstChunk(agent, sessionId)
    controller.abort()
    expect((await prompt).stopReason).toBe('cancelled')
    expect(
      agent.audit.entries.some((e) => (e.message as { method?: string })?.method === '$/cancel_request'),
    ).toBe(true)
    const [response, ...extra] = responsesTo(agent, 'session/prompt')
    expect(extra).toEqual([])
    expect(response).toMatchObject({ result: { stopReason: 'cancelled' } })
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('session/close cancels the running turn first, then closes', async () => {
    const { agent, sessionId } = await startWithSession(SLOW_SCRIPT)
    const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    await firstChunk(agent, sessionId)
    await agent.agent.request('session/close', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    await agent.agent.request('session/resume', { sessionId, cwd: CWD })
    expect((await agent.agent.request('session/prompt', { sessionId, prompt: [text('x')] })).stopReason).toBe(
      'end_turn',
    )
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('stdin EOF with a prompt in flight: the turn is cancelled, its response is written, exit 0', async () => {
    const { agent, sessionId } = await startWithSession(SHORT_SCRIPT)
    agent.writeRaw(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'session/prompt', params: { sessionId, prompt: [text('x')] } })}\n`,
    )
    expect(await agent.stop()).toBe(0)
    const answers = agent.audit.outgoing().filter((m) => m.id === 'last')
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 'last', result: { stopReason: 'cancelled', _meta: { dsh: { seq: 6 } } } },
    ])
    expect(agent.unterminatedOutput()).toBe('')
    expect(agent.audit.problems).toEqual([])
  })

  it('stdin EOF right after a request: the request is still answered', async () => {
    const agent = start()
    agent.writeRaw(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`,
    )
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.outgoing()).toMatchObject([{ id: 1, result: { protocolVersion: 1 } }])
  })

  it('a closed stdout (EPIPE: the client is gone) cancels the turn, records it, and exits cleanly', async () => {
    const { agent, sessionId } = await startWithSession(DRIP_SCRIPT)
    const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    prompt.catch(() => undefined)
    await firstChunk(agent, sessionId)
    agent.child.stdout.destroy()
    const code = await new Promise<number | null>((resolve) => agent.child.once('exit', resolve))
    expect(code).toBe(0)
    expect(agent.stderr).toContain('stdout closed')
    const after = start({ storeDir: agent.storeDir })
    await after.initialize()
    await after.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    expect(agentText(after.updates)).toContain('drop 0')
    expect(agentText(after.updates)).not.toContain('drop 99')
    const next = await after.agent.request('session/prompt', { sessionId, prompt: [text('still usable?')] })
    expect(next.stopReason).toBe('end_turn')
    expect(await after.stop()).toBe(0)
  })

  it('logs go to stderr only, even at debug level', async () => {
    const { agent, sessionId } = await startWithSession(SHORT_SCRIPT, ['--log-level', 'debug'])
    await agent.agent.request('session/prompt', { sessionId, prompt: [text('x')] })
    expect(await agent.stop()).toBe(0)
    expect(agent.stderr).toContain('shutting down')
    expect(agent.audit.problems).toEqual([])
  })
})
