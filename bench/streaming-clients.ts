import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PacedModel } from './streaming-model.js'

// The two processes the streaming bench measures, each driven over stdio and asked ANSWERS times:
// ours (the built server, `--model openai`) and a relay that fetches the stream, parses SSE and
// writes one line per chunk. Each answer's latencies are the model's, per chunk, in ms.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = process.env.DSH_BENCH_CLI ?? join(root, 'dist', 'cli.cjs')
/** Answers per process: the first is a fresh process's, the second a warm one's. */
export const ANSWERS = 2

/** Reads a child's stdout lines; hands `agent_message_chunk` texts to `onText`, answers to `onAnswer`. */
function readLines(
  child: ChildProcessWithoutNullStreams,
  onText: (text: string) => void,
  onAnswer: (m: Answer) => void,
) {
  let rest = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (data: string) => {
    const lines = (rest + data).split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) {
      const message = JSON.parse(line) as Answer & { method?: string; params?: Params }
      if (message.method === 'session/update') {
        const update = message.params?.update
        if (update?.sessionUpdate === 'agent_message_chunk') onText(update.content?.text ?? '')
      } else onAnswer(message)
    }
  })
}

interface Answer {
  readonly id?: number
  readonly result?: unknown
  readonly error?: unknown
}
interface Params {
  readonly update?: { sessionUpdate?: string; content?: { text?: string } }
}

class Rpc {
  private nextId = 1
  private readonly waiting = new Map<number, (m: Answer) => void>()
  readonly child: ChildProcessWithoutNullStreams

  constructor(args: readonly string[], env: NodeJS.ProcessEnv, model: PacedModel) {
    this.child = spawn(process.execPath, [...args], { stdio: 'pipe', env })
    this.child.stderr.resume()
    readLines(
      this.child,
      (text) => model.saw(text),
      (m) => {
        if (typeof m.id === 'number') this.waiting.get(m.id)?.(m)
      },
    )
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++
    const answer = await new Promise<Answer>((resolve) => {
      this.waiting.set(id, resolve)
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
    return answer.result
  }

  async stop(): Promise<void> {
    this.child.stdin.end()
    if (this.child.exitCode === null) await once(this.child, 'exit')
  }
}

function relayScript(): string {
  return `
let rest = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', async (text) => {
  const lines = (rest + text).split('\\n')
  rest = lines.pop()
  for (const line of lines) {
    const request = JSON.parse(line)
    if (request.method === 'session/prompt') {
      const response = await fetch(request.params.url + '/chat/completions', { method: 'POST', body: '{}' })
      const decoder = new TextDecoder()
      let buffer = ''
      for await (const bytes of response.body) {
        buffer += decoder.decode(bytes, { stream: true })
        let end
        while ((end = buffer.indexOf('\\n\\n')) !== -1) {
          const event = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = event.startsWith('data: ') ? event.slice(6) : ''
          if (data === '' || data === '[DONE]') continue
          const text = JSON.parse(data).choices[0]?.delta?.content
          if (text) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } }) + '\\n')
        }
      }
    }
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }) + '\\n')
  }
})
`
}

/** The built server on `url`: one session, ANSWERS prompts. */
export async function ours(model: PacedModel, url: string): Promise<number[][]> {
  const store = mkdtempSync(join(tmpdir(), 'dsh-bench-stream-'))
  const rpc = new Rpc(
    [
      cli,
      '--store',
      store,
      '--model',
      'openai',
      '--base-url',
      url,
      '--model-name',
      'bench-model',
      '--log-level',
      'error',
    ],
    { ...process.env, DSH_API_KEY: 'bench-key' },
    model,
  )
  try {
    await rpc.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = (await rpc.call('session/new', { cwd: store, mcpServers: [] })) as {
      sessionId: string
    }
    const answers: number[][] = []
    for (let answer = 0; answer < ANSWERS; answer++) {
      model.reset()
      await rpc.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })
      answers.push(model.latencies())
    }
    return answers
  } finally {
    await rpc.stop()
    rmSync(store, { recursive: true, force: true })
  }
}

/** The SSE relay on `url`: ANSWERS prompts. */
export async function relay(model: PacedModel, url: string): Promise<number[][]> {
  const rpc = new Rpc(['--input-type=module', '-e', relayScript()], process.env, model)
  try {
    await rpc.call('initialize', {})
    const answers: number[][] = []
    for (let answer = 0; answer < ANSWERS; answer++) {
      model.reset()
      await rpc.call('session/prompt', { url })
      answers.push(model.latencies())
    }
    return answers
  } finally {
    await rpc.stop()
  }
}
