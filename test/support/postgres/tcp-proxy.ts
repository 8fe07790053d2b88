import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 between the store and the test server, under the test's control: it
 * can cut every connection through it (a network cut, a server restart as clients see it) and
 * refuse new ones for a while (the server down), then let them through again.
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>()
  private refusing = false
  private readonly server: Server
  port = 0

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => this.accept(client))
  }

  /** A proxy to `targetHost:targetPort`, listening on a free port of 127.0.0.1. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort)
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve))
    const address = proxy.server.address()
    if (typeof address !== 'object' || !address) throw new Error('the proxy has no port')
    proxy.port = address.port
    return proxy
  }

  /** A proxy to the server of connection string `url`. */
  static to(url: string): Promise<TcpProxy> {
    const at = new URL(url)
    return TcpProxy.start(at.hostname, Number(at.port || 5432))
  }

  /** `url` (a connection string) rewritten to go through this proxy. */
  through(url: string): string {
    const at = new URL(url)
    at.hostname = '127.0.0.1'
    at.port = String(this.port)
    return at.toString()
  }

  /** How many connections go through it now. */
  get connections(): number {
    return this.pairs.size
  }

  /** Cuts every connection through it (the client side sees a reset). */
  cut(): void {
    for (const pair of [...this.pairs]) {
      pair.client.resetAndDestroy()
      pair.upstream.destroy()
    }
    this.pairs.clear()
  }

  /** The server is away: every connection cut, new ones refused until `up`. */
  down(): void {
    this.refusing = true
    this.cut()
  }

  up(): void {
    this.refusing = false
  }

  async close(): Promise<void> {
    this.down()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.resetAndDestroy()
      return
    }
    const upstream = connect(this.targetPort, this.targetHost)
    const pair = { client, upstream }
    this.pairs.add(pair)
    const drop = () => {
      this.pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  }
}
