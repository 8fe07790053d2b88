import { readFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
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

/** Whether `host` names this machine only (a listen address that needs no TLS). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
