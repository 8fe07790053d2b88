import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { WebSocket } from 'ws'

type Answer = { id?: number; result?: unknown; error?: unknown; method?: string }

/** A bench client over one transport: sends a request, resolves at its answer; sees every update. */
export abstract class RemoteBenchClient {
  private nextId = 1
  private readonly waiting = new Map<number, (answer: Answer) => void>()
  private firstUpdate: ((at: bigint) => void) | undefined
  /** Hears every `session/update` (its JSON text) as it arrives. */
  onUpdate: ((line: string) => void) | undefined

  protected abstract transmit(message: string): void

  /** One message of ours arrived (its JSON text). */
  protected received(line: string): void {
    if (line.includes('"method":"session/update"')) {
      this.onUpdate?.(line)
      this.firstUpdate?.(process.hrtime.bigint())
      return
    }
    const answer = JSON.parse(line) as Answer
    if (answer.method !== undefined || typeof answer.id !== 'number') return
    this.waiting.get(answer.id)?.(answer)
    this.waiting.delete(answer.id)
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++
    const answer = await new Promise<Answer>((resolve) => {
      this.waiting.set(id, resolve)
      this.transmit(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`)
    return answer.result
  }

  /** The ms from sending `method` to the first `session/update` after it (then its answer). */
  async firstUpdateMs(method: string, params: unknown): Promise<number> {
    const start = process.hrtime.bigint()
    let first: bigint | undefined
    this.firstUpdate = (at) => {
      first ??= at
    }
    await this.call(method, params)
    this.firstUpdate = undefined
    if (first === undefined) throw new Error(`${method} sent no update`)
    return Number(first - start) / 1e6
  }

  /** Connects and sends `initialize`. */
  abstract open(): Promise<void>

  abstract close(): Promise<void>
}

/** Streamable HTTP: POSTs on a keep-alive agent, our messages on the connection's SSE stream. */
export class HttpBenchClient extends RemoteBenchClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 })
  private connectionId = ''
  private stream: { destroy(): void } | undefined

  constructor(
    private readonly port: number,
    private readonly token: string,
  ) {
    super()
  }

  private post(body: string, retry = true): Promise<{ headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/acp',
          method: 'POST',
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            'content-type': 'application/json',
            ...(this.connectionId && { 'acp-connection-id': this.connectionId }),
          },
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            text += chunk
          })
          res.on('end', () => resolve({ headers: res.headers, body: text }))
        },
      )
      // A kept-alive socket the server closed as this request went out: send it again, once.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (retry && req.reusedSocket && error.code === 'ECONNRESET') resolve(this.post(body, false))
        else reject(error)
      })
      req.end(body)
    })
  }

  async open(): Promise<void> {
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    }
    const answer = await this.post(JSON.stringify(init))
    this.connectionId = String(answer.headers['acp-connection-id'])
    await new Promise<void>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/acp',
          headers: { authorization: `Bearer ${this.token}`, 'acp-connection-id': this.connectionId },
        },
        (res) => {
          let rest = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            const events = (rest + chunk).split('\n\n')
            rest = events.pop() ?? ''
            for (const event of events) {
              const data = event.indexOf('\ndata: ')
              if (data !== -1) this.received(event.slice(data + 7))
            }
          })
          resolve()
        },
      )
      req.on('error', () => {})
      req.end()
      this.stream = req
    })
  }

  protected transmit(message: string): void {
    this.post(message).catch((error: Error) => process.stderr.write(`bench POST failed: ${error.message}\n`))
  }

  async close(): Promise<void> {
    this.stream?.destroy()
    this.agent.destroy()
  }
}

/** WebSocket: one text frame per message. */
export class WsBenchClient extends RemoteBenchClient {
  private socket: WebSocket | undefined

  constructor(
    private readonly port: number,
    private readonly token: string,
  ) {
    super()
  }

  async open(): Promise<void> {
    const socket = new WebSocket(`ws://127.0.0.1:${this.port}/acp`, {
      headers: { authorization: `Bearer ${this.token}` },
    })
    socket.on('message', (data) => this.received(data.toString()))
    await once(socket, 'open')
    this.socket = socket
    await this.call('initialize', { protocolVersion: 1, clientCapabilities: {} })
  }

  protected transmit(message: string): void {
    this.socket?.send(message)
  }

  async close(): Promise<void> {
    this.socket?.close()
  }
}

/** `dsh-acp serve --listen 127.0.0.1:0` for the bench; resolves its port and token. */
export async function startServer(
  cli: string,
  args: readonly string[],
  tokenFile: string,
): Promise<{ child: ChildProcessWithoutNullStreams; port: number }> {
  const child = spawn(process.execPath, [
    cli,
    'serve',
    '--listen',
    '127.0.0.1:0',
    '--token-file',
    tokenFile,
    ...args,
  ])
  child.stdin.end()
  let said = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString()
      const found = /serving ACP on http:\/\/127\.0\.0\.1:(\d+)\//.exec(said)
      if (found) resolve(Number(found[1]))
    })
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${said}`)))
  })
  return { child, port }
}

/** The resident memory of process `pid`, in bytes (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  return Number(kb?.[1] ?? 0) * 1024
}
