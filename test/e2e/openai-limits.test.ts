import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { chunkTexts } from '../support/openai-wire.js'

/**
 * A hostile model server that never stops: an endless SSE line, an endless answer, an endless
 * tool argument, an endless JSON body. Each turn must end with an error naming the limit (8 MiB
 * per event, 8 MiB per answer, 4 MiB per tool argument), the server must see the agent hang up,
 * and what was stored must stay within the limit and load again.
 */

const MIB = 1024 * 1024
const PIECE = 'a'.repeat(64 * 1024)

type Endless = 'line' | 'answer' | 'argument' | 'json'

const delta = (d: object) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: null }] })}\n\n`

/** Writes `next()` until the client hangs up, waiting for the socket to drain (memory stays flat). */
function pour(res: ServerResponse, next: () => string, onClosed: () => void): void {
  let open = true
  res.on('close', () => {
    open = false
    onClosed()
  })
  const go = () => {
    while (open && res.write(next()));
    if (open) res.once('drain', go)
  }
  go()
}

async function startEndless(kinds: readonly Endless[]) {
  const hungUp: Endless[] = []
  let index = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const kind = kinds[index++] ?? 'answer'
      const done = () => hungUp.push(kind)
      if (kind === 'json') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"')
        pour(res, () => PIECE, done)
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (kind === 'line') {
        res.write('data: {"choices":[{"index":0,"delta":{"content":"')
        pour(res, () => PIECE, done)
      } else if (kind === 'answer') {
        pour(res, () => delta({ content: PIECE }), done)
      } else {
        res.write(
          delta({
            tool_calls: [
              {
                index: 0,
                id: 'call_big',
                type: 'function',
                function: { name: 'write_text_file', arguments: '{"path":"x","content":"' },
              },
            ],
          }),
        )
        pour(res, () => delta({ tool_calls: [{ index: 0, function: { arguments: PIECE } }] }), done)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    hungUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('openai end to end: a model server that never stops', () => {
  it('each endless response ends its turn with an error naming the limit; the session stays loadable', async () => {
    const kinds: Endless[] = ['line', 'answer', 'argument', 'json']
    const server = await startEndless(kinds)
    cleanups.push(server.close)
    const agent = new AgentProcess({
      args: ['--model', 'openai', '--base-url', server.url, '--model-name', 'm', '--max-retries', '0'],
      env: { DSH_API_KEY: 'k' },
    })
    cleanups.push(async () => {
      if (agent.child.exitCode === null) await agent.kill()
      agent.cleanup()
    })
    await agent.initialize({})
    const { sessionId } = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
    const expected: Record<Endless, RegExp> = {
      line: /sent an event longer than 8 MiB, the limit for one event, so the answer was cut off/,
      answer: /the model's answer grew past 8 MiB, the limit for one answer, so it was cut off/,
      argument: /the arguments of one of the model's tool calls grew past 4 MiB, the limit for one tool call/,
      json: /sent an event longer than 8 MiB, the limit for one event/,
    }
    for (const kind of kinds) {
      const prompt = agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: kind }],
      })
      await expect(prompt).rejects.toMatchObject({
        code: -32020,
        message: expect.stringMatching(expected[kind]),
      })
      await expect.poll(() => server.hungUp).toContain(kind)
    }
    const live = chunkTexts(agent.updates, 'agent_message_chunk').join('')
    expect(live.length).toBeGreaterThan(7 * MIB)
    expect(live.length).toBeLessThanOrEqual(8 * MIB)

    const from = agent.updates.length
    await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
    const replayed = chunkTexts(agent.updates.slice(from), 'agent_message_chunk').join('')
    expect(replayed).toBe(live)
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  }, 120_000)
})
