import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const deepArray = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`

const scriptDir = mkdtempSync(join(tmpdir(), 'dsh-acp-hostile-'))
const DRIP_SCRIPT = join(scriptDir, 'drip.json')
writeFileSync(
  DRIP_SCRIPT,
  JSON.stringify({
    turns: [[Array.from({ length: 100 }, (_, i) => [{ text: `drop ${i} ` }, { delayMs: 50 }]).flat()]],
  }),
)
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }))

const { start } = testResources()

async function withSession(options: ConstructorParameters<typeof AgentProcess>[0] = {}) {
  const agent = start(options)
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })
  return { agent, sessionId }
}

/** Writes one raw line and resolves the agent's answer to `id`. */
async function rawRequest(agent: AgentProcess, id: string, line: string): Promise<Record<string, unknown>> {
  agent.writeRaw(`${line}\n`)
  for (;;) {
    const answer = agent.audit.outgoing().find((m) => m.id === id)
    if (answer) return answer
    if (agent.child.exitCode !== null)
      throw new Error(`agent exited (${agent.child.exitCode}): ${agent.stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function answersTo(agent: AgentProcess, id: unknown): Record<string, unknown>[] {
  return agent.audit.outgoing().filter((m) => m.id === id)
}

describe('input nested too deep for the log', () => {
  it('a prompt whose _meta nests 5,000 deep gets -32602; the log and the file stay as they were and later turns survive a restart', async () => {
    const { agent, sessionId } = await withSession()
    await agent.agent.request('session/prompt', { sessionId, prompt: [text('before')] })
    const file = join(agent.storeDir, `${sessionId}.jsonl`)
    const before = readFileSync(file, 'utf8')
    const answer = await rawRequest(
      agent,
      'deep',
      `{"jsonrpc":"2.0","id":"deep","method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"x","_meta":${deepObject(5000)}}]}}`,
    )
    expect(answer).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('nests deeper than') },
    })
    expect((answer.error as { message: string }).message.length).toBeLessThan(400)
    expect(readFileSync(file, 'utf8')).toBe(before)
    await agent.agent.request('session/prompt', { sessionId, prompt: [text('after')] })
    expect(await agent.stop()).toBe(0)

    const again = start({ storeDir: agent.storeDir })
    await again.initialize()
    await again.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    expect(
      again.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk').map((u) => u.update),
    ).toMatchObject([{ content: { text: 'before' } }, { content: { text: 'after' } }])
    expect(await again.stop()).toBe(0)
    expect([...agent.audit.problems, ...again.audit.problems]).toEqual([])
  })

  it('a model tool call whose arguments nest 3,000 deep ends the turn with a clear error; the session still loads', async () => {
    const script = join(scriptDir, 'deep-call.json')
    const input = JSON.parse(deepObject(3000))
    writeFileSync(
      script,
      JSON.stringify({
        turns: [[[{ toolCall: { name: 'read_text_file', input } }]], [[{ text: 'next' }]]],
      }),
    )
    const { agent, sessionId } = await withSession({ args: ['--model', `script:${script}`] })
    await expect(
      agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] }),
    ).rejects.toMatchObject({ code: -32020, message: expect.stringContaining('nests deeper than') })
    expect(
      (await agent.agent.request('session/prompt', { sessionId, prompt: [text('again')] })).stopReason,
    ).toBe('end_turn')
    expect(await agent.stop()).toBe(0)
    const again = start({ storeDir: agent.storeDir, args: ['--model', `script:${script}`] })
    await again.initialize()
    await again.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    expect(agentText(again.updates)).toContain('next')
    expect(await again.stop()).toBe(0)
  })
})

describe('no line a client sends stops the server', () => {
  const hostile = [
    [
      '$/cancel_request with a 5,000-deep requestId',
      `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":${deepArray(5000)}}}`,
    ],
    [
      '$/cancelRequest with a 5,000-deep id',
      `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":${deepObject(5000)}}}`,
    ],
    [
      'a response with id null and a 5,000-deep error',
      `{"jsonrpc":"2.0","id":null,"error":${deepObject(5000)}}`,
    ],
    [
      'a response to an unknown id with a 5,000-deep result',
      `{"jsonrpc":"2.0","id":"nobody","result":${deepObject(5000)}}`,
    ],
    [
      'a request with 5,000-deep params',
      `{"jsonrpc":"2.0","id":"p","method":"session/list","params":{"x":${deepObject(5000)}}}`,
    ],
  ] as const

  for (const withTranscript of [false, true]) {
    it(`answers every request around deep lines, and the running prompt${withTranscript ? ' (with --transcript)' : ''}`, async () => {
      const transcript = join(scriptDir, `transcript-${Math.random()}.jsonl`)
      const { agent, sessionId } = await withSession({
        args: ['--model', `script:${DRIP_SCRIPT}`, ...(withTranscript ? ['--transcript', transcript] : [])],
      })
      const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
      for (const [, line] of hostile) agent.writeRaw(`${line}\n`)
      const listed = await rawRequest(
        agent,
        'after',
        '{"jsonrpc":"2.0","id":"after","method":"session/list","params":{}}',
      )
      expect(listed).toHaveProperty('result')
      expect(answersTo(agent, 'p')).toHaveLength(1)
      await agent.agent.notify('session/cancel', { sessionId })
      expect((await prompt).stopReason).toBe('cancelled')
      expect(await agent.stop()).toBe(0)
      expect(agent.stderr.length).toBeLessThan(20_000)
    })
  }
})

describe('signals', () => {
  it('SIGHUP (the terminal closed) cancels the running prompt, answers it, records it and exits 0', async () => {
    const { agent, sessionId } = await withSession({ args: ['--model', `script:${DRIP_SCRIPT}`] })
    const prompt = agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    while (!agentText(agent.updates)) await new Promise((resolve) => setTimeout(resolve, 10))
    agent.child.kill('SIGHUP')
    expect((await prompt).stopReason).toBe('cancelled')
    const code = await new Promise<number | null>((resolve) =>
      agent.child.exitCode !== null ? resolve(agent.child.exitCode) : agent.child.once('exit', resolve),
    )
    expect(code).toBe(0)
    const lines = readFileSync(join(agent.storeDir, `${sessionId}.jsonl`), 'utf8')
      .trim()
      .split('\n')
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({
      type: 'turn/end',
      data: { reason: 'cancelled' },
    })
  })
})

describe('prototype names in client input', () => {
  it('a prompt block whose type is __proto__, constructor, toString, hasOwnProperty or valueOf gets -32602', async () => {
    const { agent, sessionId } = await withSession()
    for (const type of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const id = `proto-${type}`
      const answer = await rawRequest(
        agent,
        id,
        `{"jsonrpc":"2.0","id":"${id}","method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"${type}","text":"x"}]}}`,
      )
      expect(answer).toMatchObject({
        error: { code: -32602, message: expect.stringContaining(type) },
      })
    }
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('__proto__ keys inside a content block are stored and replayed as the client sent them', async () => {
    const { agent, sessionId } = await withSession()
    const answer = await rawRequest(
      agent,
      'meta',
      `{"jsonrpc":"2.0","id":"meta","method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"x","_meta":{"__proto__":{"kept":true},"n":{"__proto__":1}}}]}}`,
    )
    expect(answer).toHaveProperty('result')
    expect(await agent.stop()).toBe(0)
    const stored = readFileSync(join(agent.storeDir, `${sessionId}.jsonl`), 'utf8')
    expect(stored).toContain('"_meta":{"__proto__":{"kept":true},"n":{"__proto__":1}}')

    const again = start({ storeDir: agent.storeDir })
    await again.initialize()
    await again.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    expect(await again.stop()).toBe(0)
    const replayed = again.audit.entries.find((e) => e.dir === 'out' && e.line.includes('user_message_chunk'))
    expect(replayed?.line).toContain('"_meta":{"__proto__":{"kept":true},"n":{"__proto__":1}}')
  })
})
