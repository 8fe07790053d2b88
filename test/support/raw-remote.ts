import { type ClientRequest, type IncomingMessage, request } from 'node:http'
import { WebSocket } from 'ws'

/** One message read off a stream: its cursor and the JSON-RPC message. */
export interface Delivered {
  readonly cursor: number
  readonly message: { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown }
}

export interface HttpAnswer {
  readonly status: number
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

/** One HTTP request to the server; resolves with the whole answer. */
export function send(
  port: number,
  options: { method: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path ?? '/acp',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/**
 * An SSE GET on a connection's stream: `onMessage` sees each event, in order; `close` cuts the
 * socket (as a dropped network would). Resolves once the stream is open, rejects with the status.
 */
export function openStream(
  port: number,
  headers: Record<string, string>,
  onMessage: (delivered: Delivered) => void,
): Promise<{ close(): void; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined
    req = request({ host: '127.0.0.1', port, method: 'GET', path: '/acp', headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return reject(new Error(`status ${res.statusCode}`))
      }
      let buffered = ''
      const ended = new Promise<void>((done) => {
        res.on('close', () => done())
        res.on('error', () => done())
      })
      res.on('data', (chunk: Buffer) => {
        buffered += chunk.toString()
        let end = buffered.indexOf('\n\n')
        while (end !== -1) {
          const event = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          const id = /^id: (\d+)$/m.exec(event)
          const data = /^data: (.*)$/m.exec(event)
          if (id && data) onMessage({ cursor: Number(id[1]), message: JSON.parse(data[1] as string) })
          end = buffered.indexOf('\n\n')
        }
      })
      resolve({ close: () => req?.destroy(), ended })
    })
    req.on('error', () => {})
    req.end()
  })
}

/** A raw WebSocket to the server: each frame's cursor (`_meta["acp/cursor"]`) and message. */
export function openSocket(
  port: number,
  headers: Record<string, string>,
  onMessage: (delivered: Delivered) => void,
): Promise<{ socket: WebSocket; connectionId: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/acp`, { headers })
    let connectionId = ''
    socket.on('upgrade', (res) => {
      connectionId = String(res.headers['acp-connection-id'] ?? '')
    })
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Delivered['message'] & { _meta?: Record<string, string> }
      onMessage({ cursor: Number(message._meta?.['acp/cursor'] ?? 0), message })
    })
    socket.once('open', () => resolve({ socket, connectionId }))
    socket.once('unexpected-response', (_req, res) => reject(new Error(`status ${res.statusCode}`)))
    socket.once('error', reject)
  })
}
