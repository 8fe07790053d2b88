import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { type RawData, type WebSocket, WebSocketServer } from 'ws'
import type { Entry } from './cursor-log.js'
import { type Gate, refusalOf } from './guard.js'
import { ACP_PATH, isRequest, peerOf } from './http-handler.js'
import type { Hub } from './hub.js'
import type { LogicalConnection, Sink } from './logical-connection.js'

/** A message of ours as a text frame, its cursor in `_meta["acp/cursor"]` beside `jsonrpc`. */
export function framed(entry: Entry): string {
  return `${entry.line.slice(0, -1)},"_meta":{"acp/cursor":"${entry.cursor}"}}`
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
}

/**
 * WebSocket as the SDK's `ws-client` speaks it: one JSON-RPC message per text frame. The upgrade
 * opens a connection (its id in the `Acp-Connection-Id` response header). A socket whose first
 * frame is `stream/resume {connectionId, cursor}` takes that connection's stream over instead:
 * `stream/resumed` then every message after the cursor, then live; or `stream/resume_failed`
 * and the socket goes on as the new connection (the client then reloads its sessions).
 */
export function wsUpgradeHandler(hub: Hub, gate: Gate) {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: hub.limits.maxMessageBytes,
    perMessageDeflate: false,
  })
  const opened = new WeakMap<IncomingMessage, LogicalConnection>()
  server.on('headers', (headers, request) => {
    const connection = opened.get(request)
    if (connection) headers.push(`Acp-Connection-Id: ${connection.id}`)
  })
  return (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (socket.writableEnded) return void socket.destroy()
    const path = (request.url ?? '/').split('?')[0]
    const refusal =
      path === ACP_PATH ? refusalOf(request, gate) : { status: 404 as const, reason: 'not found' }
    const connection = refusal ? undefined : hub.open(peerOf(request))
    const status = refusal?.status ?? (connection ? undefined : 503)
    if (status !== undefined || !connection) {
      const reason = refusal?.reason ?? 'too many connections'
      socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status ?? 503] ?? 'Refused'}\r\nConnection: close\r\n\
Content-Type: application/json\r\n\r\n${JSON.stringify({ error: reason })}`)
      return
    }
    opened.set(request, connection)
    server.handleUpgrade(request, socket, head, (ws) => serveSocket(hub, ws, connection))
  }
}

function serveSocket(hub: Hub, ws: WebSocket, fresh: LogicalConnection): void {
  let connection = fresh
  let first = true
  const sink = socketSink(ws, hub, () => connection.detach(sink))
  // A frame over the cap, a bad frame: `ws` closes the socket (1009, 1002) and reports it here.
  ws.on('error', (error) => hub.log(`connection ${connection.id}: socket closed: ${error.message}`))
  connection.attach(sink, [])
  ws.on('message', (data: RawData, binary: boolean) => {
    if (binary) return void ws.close(1003, 'text frames only')
    const text = data.toString()
    if (first) {
      first = false
      const resumed = resume(hub, text, sink)
      if (resumed) {
        fresh.detach(sink)
        void fresh.close()
        connection = resumed
        return
      }
    }
    const line = text.includes('\n') || text.includes('\r') ? text.replace(/[\r\n]/g, ' ') : text
    const message = parsed(line)
    if (message && isRequest(message) && connection.pendingBytes > hub.limits.maxBufferedBytes) {
      hub.log(`connection ${connection.id}: closed, ${connection.pendingBytes} bytes of requests unanswered`)
      return void ws.close(1008, 'too many requests not answered yet')
    }
    connection.deliver(line, message)
  })
}

/** The connection `stream/resume` names, now feeding `sink`; undefined when it is not one. */
function resume(hub: Hub, text: string, sink: SocketSink): LogicalConnection | undefined {
  if (!text.includes('"stream/resume"')) return undefined
  let params: { connectionId?: unknown; cursor?: unknown } = {}
  try {
    const message = JSON.parse(text) as { method?: unknown; params?: typeof params }
    if (message.method !== 'stream/resume') return undefined
    params = message.params ?? {}
  } catch {
    return undefined
  }
  const target = typeof params.connectionId === 'string' ? hub.get(params.connectionId) : undefined
  const cursor = Number(params.cursor)
  const backlog = target?.log.after(cursor)
  const note = (method: string, extra: object) => ({
    cursor: 0,
    line: JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, ...extra } }),
    at: 0,
  })
  if (!target || !backlog) {
    const reason = target ? 'the stream after that cursor is no longer kept' : 'no such connection'
    sink.sendRaw(note('stream/resume_failed', { reason }).line)
    return undefined
  }
  sink.sendRaw(note('stream/resumed', {}).line)
  target.attach(sink, backlog)
  hub.log(`connection ${target.id}: socket resumed after cursor ${cursor}`)
  return target
}

interface SocketSink extends Sink {
  /** A frame outside the cursor-numbered stream (the answers to `stream/resume`). */
  sendRaw(text: string): void
}

function socketSink(ws: WebSocket, hub: Hub, onGone: () => void): SocketSink {
  const limits = hub.limits
  let alive = true
  let queued = 0
  let stalledSince: number | undefined
  ws.on('pong', () => {
    alive = true
  })
  const timer = setInterval(() => {
    const now = Date.now()
    if (ws.bufferedAmount > 0 && ws.bufferedAmount >= queued) stalledSince ??= now
    else stalledSince = undefined
    queued = ws.bufferedAmount
    const stalled = stalledSince !== undefined && now - stalledSince >= limits.maxOutputStallMs
    if (!alive || stalled) return void ws.terminate()
    alive = false
    ws.ping()
  }, limits.keepaliveMs)
  timer.unref()
  ws.once('close', () => {
    clearInterval(timer)
    onGone()
  })
  const send = (text: string) => {
    if (ws.readyState !== ws.OPEN) return
    ws.send(text)
    if (ws.bufferedAmount > limits.maxBufferedBytes) ws.terminate()
  }
  return {
    send: (entry) => send(framed(entry)),
    sendRaw: send,
    close: () => ws.close(1000, 'the stream moved to another transport'),
  }
}

/** A frame's JSON-RPC message (an object), else undefined (the agent answers what is wrong). */
function parsed(text: string): { method?: unknown; id?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}
