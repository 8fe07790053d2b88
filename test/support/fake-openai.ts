import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

/** One step of a scripted streaming answer. */
export type FakeStreamStep =
  /** One event: `data: <JSON>` then a blank line (a string is sent as it is, e.g. `'[DONE]'`). */
  | { readonly data: unknown }
  /** Bytes written as they are (comments, CRLF framing, half an event). */
  | { readonly raw: string }
  /** Wait for the promise before writing on (lets a test act while the stream is open). */
  | { readonly until: Promise<unknown> }
  /** Write nothing more and wait until the client hangs up. */
  | { readonly waitForClose: true }
  /** Reset the connection here (a server dying mid-stream). */
  | { readonly destroy: true }

/** A scripted answer to one request. */
export type FakeReply =
  /** A 200 `text/event-stream` answer; the response ends after the last step. */
  | { readonly stream: readonly FakeStreamStep[]; readonly headers?: Readonly<Record<string, string>> }
  /** A plain answer, e.g. `{status: 429, headers: {'retry-after': '0'}, body: {error: {message}}}`. */
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** Close the connection before sending anything. */
  | { readonly reset: true }
  /** Never answer (not even headers) until the client hangs up. */
  | { readonly hang: true }

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The body parsed as JSON (`undefined` if it was not JSON). */
  readonly body: { readonly [key: string]: unknown } | undefined
  readonly rawBody: string
  /** Resolves when this request's response is closed, by either side. */
  readonly closed: Promise<void>
  /** Set when the client hung up before the response ended. */
  readonly clientHungUp: boolean
  /** The reply it got, as data a replay can serve again (steps that wait for the test are left out). */
  readonly reply: FakeReply
}

export interface FakeOpenAi {
  /** The API root to pass as `baseUrl` (`http://127.0.0.1:<port>/v1`). */
  readonly url: string
  /** Every request received, in order. */
  readonly requests: RecordedRequest[]
  close(): Promise<void>
}

export type FakeScript = readonly FakeReply[] | ((request: RecordedRequest, index: number) => FakeReply)

/** The dsh-acp arguments that point its openai provider at `fake` (model name `fake-model`). */
export function fakeModelArgs(fake: FakeOpenAi): string[] {
  return ['--model', 'openai', '--base-url', fake.url, '--model-name', 'fake-model']
}

/**
 * One fake server per test of the calling file: `args(script)` starts it and answers the agent's
 * flags for it; `server` is the running one; each is closed after its test.
 */
export function fakeServerPerTest(): {
  args(script: FakeScript): Promise<string[]>
  readonly server: FakeOpenAi | undefined
} {
  let fake: FakeOpenAi | undefined
  afterEach(async () => {
    await fake?.close()
    fake = undefined
  })
  return {
    async args(script) {
      fake = await startFakeOpenAi(script)
      return fakeModelArgs(fake)
    },
    get server() {
      return fake
    },
  }
}

/**
 * Starts a scripted OpenAI-compatible chat-completions server on 127.0.0.1 (a free port). Request
 * `i` gets `script[i]` (or `script(request, i)`); a request beyond the script gets a 500 saying so.
 */
export async function startFakeOpenAi(script: FakeScript): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8')
      let hungUp = false
      let resolveClosed: () => void = () => {}
      const closed = new Promise<void>((resolve) => {
        resolveClosed = resolve
      })
      res.on('close', () => {
        if (!res.writableFinished) hungUp = true
        resolveClosed()
      })
      let served: FakeReply = { hang: true }
      const record: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: parseJson(rawBody) as RecordedRequest['body'],
        rawBody,
        closed,
        get clientHungUp() {
          return hungUp
        },
        get reply() {
          return served
        },
      }
      const index = requests.length
      requests.push(record)
      const scripted = typeof script === 'function' ? script(record, index) : script[index]
      const reply = scripted ?? {
        status: 500,
        body: { error: { message: `fake: no reply scripted for #${index}` } },
      }
      served = replayable(reply)
      void answer(res, reply)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const fake: FakeOpenAi = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        running.delete(fake.url)
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  running.set(fake.url, fake)
  return fake
}

const running = new Map<string, FakeOpenAi>()

/** The running fake server at `url`, if any (so a snapshot scenario can record what it served). */
export function runningFakeOpenAi(url: string): FakeOpenAi | undefined {
  return running.get(url)
}

/** A reply without the steps that wait on the test (`until`): what a replay serves at once. */
function replayable(reply: FakeReply): FakeReply {
  if (!('stream' in reply)) return reply
  return { ...reply, stream: reply.stream.filter((step) => !('until' in step)) }
}

async function answer(res: ServerResponse, reply: FakeReply): Promise<void> {
  if ('reset' in reply) {
    res.socket?.destroy()
    return
  }
  if ('hang' in reply) return
  if ('status' in reply) {
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {})
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
    res.end(text)
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers })
  res.flushHeaders()
  const closed = new Promise<void>((resolve) => res.once('close', resolve))
  for (const step of reply.stream) {
    if (res.destroyed) return
    if ('data' in step) {
      await write(res, `data: ${typeof step.data === 'string' ? step.data : JSON.stringify(step.data)}\n\n`)
    } else if ('raw' in step) {
      await write(res, step.raw)
    } else if ('until' in step) {
      await step.until
    } else if ('waitForClose' in step) {
      await closed
      return
    } else {
      res.socket?.destroy()
      return
    }
  }
  res.end()
}

/** Writes and waits until the bytes were handed to the socket (so a later destroy cannot drop them). */
function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => res.write(text, () => resolve()))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** One streamed chunk with `delta` (and `finish_reason`, default `null`). */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): { data: unknown } {
  return {
    data: {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    },
  }
}

/** The final usage chunk (`choices: []`) that `stream_options.include_usage` asks for. */
export function usageChunk(
  promptTokens: number,
  completionTokens: number,
  extra: object = {},
): { data: unknown } {
  return {
    data: {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        ...extra,
      },
    },
  }
}

export interface FakeToolCall {
  readonly id: string
  readonly name: string
  /** The arguments JSON text, or the pieces it is streamed in. */
  readonly arguments: string | readonly string[]
}

/**
 * A whole streamed completion: reasoning pieces, text pieces, tool calls (each streamed as a first
 * fragment with id and name, then its argument pieces), the finish chunk (default `tool_calls`
 * when there are calls, else `stop`), a usage chunk when `usage` is given, then `[DONE]`.
 */
export function completionStream(options: {
  readonly reasoning?: string | readonly string[]
  readonly text?: string | readonly string[]
  readonly toolCalls?: readonly FakeToolCall[]
  readonly finishReason?: string
  readonly usage?: { readonly prompt: number; readonly completion: number }
}): FakeStreamStep[] {
  const pieces = (value: string | readonly string[] | undefined) =>
    value === undefined ? [] : typeof value === 'string' ? [value] : [...value]
  const steps: FakeStreamStep[] = [chunk({ role: 'assistant', content: '' })]
  for (const piece of pieces(options.reasoning)) steps.push(chunk({ reasoning_content: piece }))
  for (const piece of pieces(options.text)) steps.push(chunk({ content: piece }))
  const calls = options.toolCalls ?? []
  calls.forEach((call, index) => {
    steps.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    )
    for (const piece of pieces(call.arguments)) {
      steps.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  steps.push(chunk({}, options.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop')))
  if (options.usage) steps.push(usageChunk(options.usage.prompt, options.usage.completion))
  steps.push({ data: '[DONE]' })
  return steps
}

/** Everything a stream yields, in order. */
export async function collectAll<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of stream) out.push(item)
  return out
}

/** Runs a stream that must fail: what it yielded before failing, and the error it threw. */
export async function collectUntilError<T>(
  stream: AsyncIterable<T>,
): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = []
  try {
    for await (const item of stream) items.push(item)
  } catch (error) {
    return { items, error }
  }
  throw new Error(`expected the stream to fail; it ended after ${JSON.stringify(items)}`)
}
