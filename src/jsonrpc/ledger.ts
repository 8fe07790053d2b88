import type { WireId } from './envelope.js'

/**
 * The peer's request ids in flight on one connection, shared by its reader and writer: ids of
 * requests read and not yet answered. The writer releases an id when it writes the response. Ids
 * are compared by their string form, so `1` and `"1"` count as the same id (as vscode-jsonrpc
 * keys its message queue). Our own requests' ids are `OutboundRequests`' business.
 */
export class RequestLedger {
  /** Inbound ids in flight, integers and strings kept apart (no string made per integer id). */
  private readonly inboundNumbers = new Set<number>()
  private readonly inboundStrings = new Set<string>()

  /** Records an inbound request; false when its id is already in flight. */
  admitInbound(id: WireId): boolean {
    if (this.hasInbound(id)) return false
    if (typeof id === 'number') this.inboundNumbers.add(id)
    else this.inboundStrings.add(id)
    return true
  }

  hasInbound(id: WireId): boolean {
    if (typeof id === 'number') {
      return (
        this.inboundNumbers.has(id) || (this.inboundStrings.size > 0 && this.inboundStrings.has(String(id)))
      )
    }
    return this.inboundStrings.has(id) || (this.inboundNumbers.size > 0 && this.hasNumberSpelled(id))
  }

  releaseInbound(id: WireId): void {
    if (typeof id === 'number') {
      if (!this.inboundNumbers.delete(id)) this.inboundStrings.delete(String(id))
    } else if (!this.inboundStrings.delete(id)) {
      const number = Number(id)
      if (String(number) === id) this.inboundNumbers.delete(number)
    }
  }

  get inboundCount(): number {
    return this.inboundNumbers.size + this.inboundStrings.size
  }

  /** Whether an integer id in flight has `id` as its string form. */
  private hasNumberSpelled(id: string): boolean {
    const number = Number(id)
    return String(number) === id && this.inboundNumbers.has(number)
  }
}
