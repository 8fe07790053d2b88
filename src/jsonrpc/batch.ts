import type { ResponseMessage } from 'vscode-jsonrpc'
import type { WireId } from './envelope.js'

/**
 * Whether a connection reads JSON-RPC batches (arrays of messages on one line). Without a policy,
 * or while `accepted()` is false, a batch gets one `-32600` with id null and nothing in it runs.
 */
export interface BatchPolicy {
  /** True once batches are served (e.g. after the peer chose a protocol version that has them). */
  accepted(): boolean
  /** Request methods that must come on their own line: in a batch each gets its own `-32600`. */
  readonly unbatchable: ReadonlySet<string>
}

interface OpenBatch {
  waiting: number
  readonly answers: ResponseMessage[]
}

/**
 * The answers of the batches read and not yet answered in full: each request of a batch has its
 * response held here until every request of that batch was answered, then they go out together as
 * one array line (JSON-RPC 2.0 §6). Ids are keyed by their string form, as the request ledger does.
 */
export class BatchAnswers {
  private readonly byId = new Map<string, OpenBatch>()

  constructor(private readonly write: (answers: readonly ResponseMessage[]) => void) {}

  /**
   * Opens a batch whose requests `ids` were admitted, with the `answers` the reader already gave
   * (its refused entries). With no request to wait for, those answers go out at once; with none
   * at all (notifications only), nothing does.
   */
  open(ids: readonly WireId[], answers: readonly ResponseMessage[]): void {
    if (ids.length === 0) {
      if (answers.length > 0) this.write(answers)
      return
    }
    const batch: OpenBatch = { waiting: ids.length, answers: [...answers] }
    for (const id of ids) this.byId.set(String(id), batch)
  }

  /** Holds `response` when it answers a request of an open batch (true); false otherwise. */
  take(response: ResponseMessage): boolean {
    if (response.id === null || this.byId.size === 0) return false
    const key = String(response.id)
    const batch = this.byId.get(key)
    if (batch === undefined) return false
    this.byId.delete(key)
    batch.answers.push(response)
    if (--batch.waiting === 0) this.write(batch.answers)
    return true
  }
}
