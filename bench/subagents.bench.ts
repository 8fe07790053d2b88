import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { agentPlugin } from '../src/agent/index.js'
import { createOpenAiProvider } from '../src/agent/providers/openai/index.js'
import type { TurnRequest } from '../src/agent/types.js'
import { persistencePlugin } from '../src/persistence/index.js'
import { routeLogsToStderr } from '../src/process/logging.js'
import type { SessionEvent } from '../src/session/index.js'
import { sessionsPlugin } from '../src/session/index.js'
import { type BenchRow, median } from './harness.js'
import { commonPrefix, PrefixCache } from './prefix-cache.js'

/**
 * Fork-based subagents against a fake chat-completions server on 127.0.0.1 that caches by exact
 * prefix and answers each child after a fixed model latency. A parent of 10 turns (about 2 KB of
 * answer each) delegates to 4 children in one step. Rows: the prefix each child's first request
 * shares with its parent's last request, against the parent's whole history; the cached tokens
 * the server reports for the children's first requests, against their prompt tokens; the wall
 * time of the delegating turn with 4 children at once, against the same 4 one after another.
 */

const PARENT_TURNS = 10
const CHILDREN = 4
const CHILD_LATENCY_MS = 40
const RUNS = 5
const ANSWER = 'The build is green and the tests pass on every platform we support. '.repeat(30)

interface Seen {
  readonly body: { readonly [key: string]: unknown }
  readonly prompt: string
  readonly promptTokens: number
  readonly cachedTokens: number
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`
const delta = (d: object, finish: string | null = null) =>
  sse({
    id: 'b',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta: d, finish_reason: finish }],
  })

function lastUser(body: Seen['body']): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[]
  return String(messages.filter((m) => m.role === 'user').at(-1)?.content ?? '')
}

/** The fake model: plain answers for the parent's turns, 4 delegations for `delegate`, children answer after a latency. */
async function startModel(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const cache = new PrefixCache()
  const seen: Seen[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body']
      const usage = cache.see(body)
      seen.push({ body, prompt: PrefixCache.promptOf(body), ...usage })
      const user = lastUser(body)
      const afterTools = ((body.messages ?? []) as { role: string }[]).at(-1)?.role === 'tool'
      let out = delta({ role: 'assistant', content: '' })
      if (user.startsWith('task ')) {
        await new Promise((resolve) => setTimeout(resolve, CHILD_LATENCY_MS))
        out += delta({ content: `result of ${user}` }) + delta({}, 'stop')
      } else if (user === 'delegate' && !afterTools) {
        for (let i = 0; i < CHILDREN; i++) {
          const args = JSON.stringify({ task: `task ${i + 1}` })
          out += delta({
            tool_calls: [
              {
                index: i,
                id: `d${i + 1}`,
                type: 'function',
                function: { name: 'delegate', arguments: args },
              },
            ],
          })
        }
        out += delta({}, 'tool_calls')
      } else {
        out += delta({ content: user === 'delegate' ? 'all done' : ANSWER }) + delta({}, 'stop')
      }
      const cached = { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }
      out += sse({
        id: 'b',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [],
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: 5,
          total_tokens: usage.promptTokens + 5,
          ...cached,
        },
      })
      out += 'data: [DONE]\n\n'
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(out)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function startAgent(dir: string, url: string, maxConcurrent: number): Promise<Context> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin, { defaultCwd: '/bench' })
  ctx.plugin(persistencePlugin, { dir })
  ctx.plugin(agentPlugin, {
    provider: createOpenAiProvider({ baseUrl: url, model: 'bench-model', maxRetries: 0 }),
    subagents: { maxConcurrent },
  })
  await ctx.start()
  return ctx
}

function request(text: string): TurnRequest {
  return {
    prompt: [{ type: 'text', text }],
    signal: new AbortController().signal,
    sendUpdate: () => {},
    client: {},
  }
}

export const suite = {
  name: 'subagents',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(1)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-subagents-'))
    const model = await startModel()
    try {
      // The 10-turn parent, built once through real turns; each measured run seeds a fresh copy.
      const setup = await startAgent(join(dir, 'setup'), model.url, CHILDREN)
      const built = setup.sessions.create()
      for (let turn = 1; turn <= PARENT_TURNS; turn++)
        await setup.agent.runTurn(built, request(`turn ${turn}`))
      const seed: SessionEvent[] = built.events()
      await setup.sessions.closeAll()
      await setup.stop()

      const turnMs: Record<'concurrent' | 'sequential', number[]> = { concurrent: [], sequential: [] }
      let shared: number[] = []
      let history: number[] = []
      let ofChildRequest: number[] = []
      let cached = 0
      let promptTokens = 0
      const firstChildCached: number[] = []
      for (let run = 0; run < RUNS; run++) {
        for (const mode of ['concurrent', 'sequential'] as const) {
          const ctx = await startAgent(
            join(dir, `${mode}-${run}`),
            model.url,
            mode === 'concurrent' ? CHILDREN : 1,
          )
          const parent = await ctx.sessions.createDurable(undefined, { seed })
          const from = model.seen.length
          const start = process.hrtime.bigint()
          await ctx.agent.runTurn(parent, request('delegate'))
          turnMs[mode].push(Number(process.hrtime.bigint() - start) / 1e6)
          const requests = model.seen.slice(from)
          const parentLast = requests.find((r) => lastUser(r.body) === 'delegate')
          const children = requests.filter((r) => lastUser(r.body).startsWith('task '))
          if (!parentLast || children.length !== CHILDREN) throw new Error('bench: unexpected requests')
          // The parent's history: its last request's prompt up to (not including) this turn's user message.
          const parentHistory = parentLast.prompt.slice(0, parentLast.prompt.lastIndexOf('\n{"role":"user"'))
          if (mode === 'concurrent') {
            shared = children.map((c) => commonPrefix(c.prompt, parentHistory))
            history = children.map(() => parentHistory.length)
            ofChildRequest = children.map((c, i) => (shared[i] as number) / c.prompt.length)
            const first = children[0] as Seen
            firstChildCached.push(first.cachedTokens / first.promptTokens)
            cached += children.reduce((sum, c) => sum + c.cachedTokens, 0)
            promptTokens += children.reduce((sum, c) => sum + c.promptTokens, 0)
          }
          await ctx.sessions.closeAll()
          await ctx.stop()
        }
      }
      const sharedMin = Math.min(...shared.map((s, i) => s / (history[i] as number)))
      const percent = (x: number) => `${(x * 100).toFixed(1)} %`
      return [
        {
          group: 'subagents',
          name: `bytes of the parent's history (${PARENT_TURNS} turns) a child's first request repeats`,
          ours: median(shared),
          baselineName: "the parent's whole history (bytes)",
          baseline: median(history),
          unit: 'bytes',
          better: 'higher',
          target: 1.0,
          note: `worst child ${percent(sharedMin)}; the shared prefix is ${percent(median(ofChildRequest))} of a child's first request`,
        },
        {
          group: 'subagents',
          name: `cached tokens of ${CHILDREN} children's first requests (exact-prefix cache)`,
          ours: cached / RUNS,
          baselineName: 'their prompt tokens',
          baseline: promptTokens / RUNS,
          unit: 'tokens',
          better: 'higher',
          target: 0.9,
          note: `siblings also share with each other; the first child's alone: ${percent(median(firstChildCached))}`,
        },
        {
          group: 'subagents',
          name: `delegating turn, ${CHILDREN} children at once (${CHILD_LATENCY_MS} ms model latency each)`,
          ours: median(turnMs.concurrent),
          baselineName: `the same ${CHILDREN} one after another`,
          baseline: median(turnMs.sequential),
          unit: 'ms',
          better: 'lower',
          target: 0.5,
        },
      ]
    } finally {
      await model.close()
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
