import type { RemoteLimits } from './limits.js'
import { LogicalConnection, type ServeStreams } from './logical-connection.js'

/** The logical connections of one server, by id, at most `limits.maxConnections` at once. */
export class Hub {
  private readonly connections = new Map<string, LogicalConnection>()

  constructor(
    private readonly serve: ServeStreams,
    readonly limits: RemoteLimits,
    readonly log: (message: string) => void,
  ) {}

  /** A new connection, or undefined when there are already as many as allowed. */
  open(peer: string): LogicalConnection | undefined {
    if (this.connections.size >= this.limits.maxConnections) {
      this.log(`connection refused from ${peer}: ${this.connections.size} connections already open`)
      return undefined
    }
    const connection = new LogicalConnection(this.serve, this.limits.retention, (closed) => {
      this.connections.delete(closed.id)
      this.log(`connection ${closed.id} closed`)
    })
    this.connections.set(connection.id, connection)
    this.log(`connection ${connection.id} opened from ${peer}`)
    return connection
  }

  get(id: string | undefined): LogicalConnection | undefined {
    return id === undefined ? undefined : this.connections.get(id)
  }

  get size(): number {
    return this.connections.size
  }

  /** Ends every connection (each settles its running calls first). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()))
  }
}
