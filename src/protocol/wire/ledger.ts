import type { WireId } from './envelope.js'

/**
 * Request ids in flight on one connection, shared by its reader and writer.
 *
 * Inbound: ids of requests read and not yet answered. The writer releases an id when it writes
 * the response. Ids are compared by their string form, so `1` and `"1"` count as the same id:
 * vscode-jsonrpc keys its message queue that way and would otherwise drop one of the two.
 *
 * Outbound: ids of requests we sent (typed: `1` and `"1"` differ, as vscode-jsonrpc matches
 * responses by value), so the reader can tell a response it expects from a stray one.
 */
export class RequestLedger {
  private readonly inbound = new Set<string>()
  private readonly outbound = new Set<string>()

  /** Records an inbound request; false when its id is already in flight. */
  admitInbound(id: WireId): boolean {
    const key = String(id)
    if (this.inbound.has(key)) return false
    this.inbound.add(key)
    return true
  }

  hasInbound(id: WireId): boolean {
    return this.inbound.has(String(id))
  }

  releaseInbound(id: WireId): void {
    this.inbound.delete(String(id))
  }

  get inboundCount(): number {
    return this.inbound.size
  }

  recordOutbound(id: WireId): void {
    this.outbound.add(typedKey(id))
  }

  /** Consumes an outbound id; false when no request of ours with that id is pending. */
  settleOutbound(id: WireId): boolean {
    return this.outbound.delete(typedKey(id))
  }
}

function typedKey(id: WireId): string {
  return typeof id === 'string' ? `s:${id}` : `n:${id}`
}
