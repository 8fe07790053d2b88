import { readFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import type { Gate } from './guard.js'
import { httpHandler } from './http-handler.js'
import { Hub } from './hub.js'
import type { RemoteLimits } from './limits.js'
import type { ServeStreams } from './logical-connection.js'
import { wsUpgradeHandler } from './ws-handler.js'

export interface ListenOptions {
  readonly host: string
  readonly port: number
  readonly gate: Gate
  readonly limits: RemoteLimits
  /** PEM files; both or neither. */
  readonly tls?: { readonly cert: string; readonly key: string }
  readonly log: (message: string) => void
}

export interface Listening {
  readonly hub: Hub
  readonly server: Server
  readonly address: AddressInfo
  readonly secure: boolean
  /** Stops accepting, ends every connection (their running calls settle first), closes sockets. */
  close(): Promise<void>
}

/** Serves ACP over HTTP and WebSocket on one port (see http-handler.ts and ws-handler.ts). */
export async function listen(serve: ServeStreams, options: ListenOptions): Promise<Listening> {
  const hub = new Hub(serve, options.limits, options.log)
  const handler = httpHandler(hub, options.gate)
  // How often Node checks for requests past their header or request timeout (default 30 s).
  const checking = { connectionsCheckingInterval: Math.min(1000, options.limits.headersTimeoutMs) }
  const server: Server = options.tls
    ? createHttpsServer(
        { ...checking, cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) },
        handler,
      )
    : createHttpServer(checking, handler)
  server.headersTimeout = options.limits.headersTimeoutMs
  server.requestTimeout = options.limits.headersTimeoutMs * 3
  server.keepAliveTimeout = 5_000
  server.maxHeadersCount = 100
  server.on('upgrade', wsUpgradeHandler(hub, options.gate))
  capSockets(server, options)
  // A request that broke the parser, or whose headers did not arrive in time (a half-open socket).
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request'
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`)
    else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  return {
    hub,
    server,
    address,
    secure: options.tls !== undefined,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      await hub.closeAll()
      server.closeAllConnections()
      await closed
    },
  }
}

/**
 * At most `limits.maxSockets` sockets at once: one more is answered `503` (plain HTTP; over TLS it
 * is closed, nothing readable can be written before the handshake) and closed, and logged.
 */
function capSockets(server: Server, options: ListenOptions): void {
  let open = 0
  // Before the HTTP server's own listener; a refused socket's request is then dropped by the handlers.
  server.prependListener('connection', (socket: Socket) => {
    open++
    socket.once('close', () => open--)
    if (open <= options.limits.maxSockets) return
    options.log(`socket refused from ${socket.remoteAddress}: ${open - 1} sockets already open`)
    if (options.tls) return void socket.destroy()
    const body = JSON.stringify({ error: 'too many sockets open: try again later' })
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
  })
}

/** Whether `host` names this machine only (a listen address that needs no TLS). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
