import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { Context } from 'cordis'
import { builtinTools } from '../src/agent/builtin-tools.js'
import { compact } from '../src/agent/compaction/compactor.js'
import { estimateTokens, tokenCounter } from '../src/agent/compaction/token-estimate.js'
import { createOpenAiProvider } from '../src/agent/providers/openai/index.js'
import { ToolRegistry } from '../src/agent/tools/registry.js'
import { systemPrompt } from '../src/agent/turn/system-prompt.js'
import type { ModelRequest } from '../src/agent/types.js'
import { routeLogsToStderr } from '../src/process/logging.js'
import { type ModelMessage, projectHistory, type Session, sessionsPlugin } from '../src/session/index.js'
import { type BenchRow, median } from './harness.js'
import { SmallWindowModel } from './small-window-model.js'

/**
 * Compaction near a 128k-token window, against a fake chat-completions server on 127.0.0.1
 * (small-window-model.ts: its own token count with cl100k_base, a prefix cache). The session: 60
 * turns, each a prompt, a tool call with a ~6 KB output and an answer (about 100k tokens). Rows:
 * - the wall time of one compaction (projection, estimates, the summary request, the event)
 *   against the server's own time for the summary request (from its first byte in to the last
 *   out; the fake model takes {@link MODEL_MS} to answer, a real one takes far longer, so the
 *   ratio bounds our overhead from above);
 * - the cached share of the summary request (its prefix is the last request's) and of the second
 *   request after the compaction (its prefix is the first's), by the server's prefix cache;
 * - dsh-acp's token estimate of the summary request against the count the server reports.
 */

const WINDOW = 128_000
const TURNS = 75
const MODEL_MS = 500
const RUNS = 5
const OUTPUT = 'export function handler(request, response) { return response.json({ ok: true }) }\n'.repeat(
  75,
)

interface Served {
  readonly summary: boolean
  readonly ms: number
  readonly promptTokens: number
  readonly cachedShare: number
}

async function startServer(): Promise<{
  url: string
  served: Served[]
  model: SmallWindowModel
  close(): Promise<void>
}> {
  const model = new SmallWindowModel(WINDOW)
  const served: Served[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const began = performance.now()
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const reply = model.reply(body)
      const seen = model.seen.at(-1)
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(reply.body))
      } else {
        await delay(MODEL_MS)
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const data of reply.stream)
          res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
        res.end()
      }
      res.once('finish', () =>
        served.push({
          summary: seen?.summary === true,
          ms: performance.now() - began,
          promptTokens: seen?.promptTokens ?? 0,
          cachedShare: seen?.cachedShare ?? 0,
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    served,
    model,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

function longSession(session: Session): void {
  for (let turn = 1; turn <= TURNS; turn++) {
    const text = (t: string) => [{ type: 'text' as const, text: t }]
    session.append({ type: 'turn/start', data: { turn } })
    session.append({
      type: 'user/message',
      data: { turn, content: text(`Step ${turn}: look at src/mod${turn}.ts and fix it.`) },
    })
    session.append({ type: 'step/start', data: { turn, step: 1 } })
    session.append({ type: 'assistant/message', data: { turn, step: 1, content: 'Reading it.' } })
    session.append({
      type: 'tool/call',
      data: {
        turn,
        step: 1,
        callId: `c${turn}`,
        name: 'read_text_file',
        input: { path: `src/mod${turn}.ts` },
      },
    })
    session.append({
      type: 'tool/result',
      data: { turn, step: 1, callId: `c${turn}`, output: `${turn}\n${OUTPUT}` },
    })
    session.append({ type: 'step/end', data: { turn, step: 1 } })
    session.append({ type: 'step/start', data: { turn, step: 2 } })
    session.append({
      type: 'assistant/message',
      data: { turn, step: 2, content: `Fixed src/mod${turn}.ts.` },
    })
    session.append({ type: 'step/end', data: { turn, step: 2 } })
    session.append({ type: 'turn/end', data: { turn, reason: 'completed' } })
  }
}

async function drain(iterable: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of iterable);
}

export const suite = {
  name: 'compaction',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(0)
    const server = await startServer()
    const ctx = new Context()
    ctx.plugin(sessionsPlugin, {})
    await ctx.start()
    try {
      const provider = createOpenAiProvider({ baseUrl: server.url, model: 'fake-model', maxRetries: 0 })
      const tools = new ToolRegistry(builtinTools()).specs()
      const parent = ctx.sessions.create(undefined, { meta: { cwd: '/work/project' } })
      longSession(parent)
      await tokenCounter()
      const ask = { trigger: 'command' as const, through: parent.lastSeq }
      const request = (messages: readonly ModelMessage[]): ModelRequest => ({
        sessionId: parent.id,
        cwd: parent.cwd,
        messages,
        tools,
        model: 'fake-model',
      })
      const ours: number[] = []
      const theirs: number[] = []
      let summaryShare = 0
      let secondShare = 0
      let estimate = 0
      let counted = 0
      let before = 0
      for (let run = 0; run <= RUNS; run++) {
        const session = ctx.sessions.fork(parent, parent.lastSeq)
        // The request the session sent last (so the summary request's prefix is in the cache).
        const history = projectHistory(session.events())
        await drain(
          provider.stream(
            request([...history, { role: 'user', content: [{ type: 'text', text: 'next' }] }]),
            new AbortController().signal,
          ),
        )
        before = server.served.length
        const start = performance.now()
        const result = await compact(
          {
            session,
            provider,
            tools,
            model: 'fake-model',
            signal: new AbortController().signal,
            send: () => {},

            window: WINDOW,
          },
          ask,
        )
        const took = performance.now() - start
        if (result.status !== 'completed') throw new Error(`compaction ${result.status}`)
        const summaryServed = server.served.slice(before).find((s) => s.summary)
        if (!summaryServed) throw new Error('no summary request was served')
        // Two requests after the compaction: the second's prefix is the first's.
        const view = projectHistory(session.events())
        const first: ModelMessage[] = [...view, { role: 'user', content: [{ type: 'text', text: 'go on' }] }]
        await drain(provider.stream(request(first), new AbortController().signal))
        const second: ModelMessage[] = [
          ...first,
          { role: 'assistant', content: 'Going on.', toolCalls: [] },
          { role: 'user', content: [{ type: 'text', text: 'and then?' }] },
        ]
        await drain(provider.stream(request(second), new AbortController().signal))
        if (run === 0) continue
        ours.push(took)
        theirs.push(summaryServed.ms)
        summaryShare = summaryServed.cachedShare
        secondShare = server.served.at(-1)?.cachedShare ?? 0
        counted = summaryServed.promptTokens
        const summaryMessages = [
          ...history,
          { role: 'user' as const, content: [{ type: 'text' as const, text: 'x' }] },
        ]
        estimate = await estimateTokens({
          system: systemPrompt({ recorded: undefined, cwd: session.cwd, mode: 'ask', tools }),
          cwd: session.cwd,
          messages: summaryMessages,
          tools,
        })
      }
      const note = `${TURNS} turns, ~${Math.round(counted / 1000)}k tokens by the server's count; fake model ${MODEL_MS} ms`
      return [
        {
          group: 'compaction',
          name: `compaction near a ${WINDOW / 1000}k window (wall time)`,
          ours: median(ours),
          baselineName: "the server's own time for the summary request",
          baseline: median(theirs),
          unit: 'ms',
          better: 'lower',
          target: 1.1,
          note,
        },
        {
          group: 'compaction',
          name: 'cached share of the summary request (prefix of the last request)',
          ours: summaryShare * 100,
          baselineName: 'the whole prompt',
          baseline: 100,
          unit: 'tokens',
          better: 'higher',
          target: 0.9,
          note: 'percent of its prompt a prefix cache holds',
        },
        {
          group: 'compaction',
          name: 'cached share of the 2nd request after a compaction',
          ours: secondShare * 100,
          baselineName: 'the whole prompt',
          baseline: 100,
          unit: 'tokens',
          better: 'higher',
          target: 0.9,
          note: 'percent of its prompt a prefix cache holds',
        },
        {
          group: 'compaction',
          name: 'token estimate of the summary request (o200k_base, x1.15 + framing)',
          ours: estimate,
          baselineName: "the server's count (cl100k_base, ChatML)",
          baseline: counted,
          unit: 'tokens',
          better: 'higher',
          target: 1.0,
          note: `estimate error ${(((estimate - counted) / counted) * 100).toFixed(1)}% (errs high when >= 0)`,
        },
      ]
    } finally {
      await ctx.stop()
      await server.close()
    }
  },
}
