import type * as acp from '@agentclientprotocol/sdk'
import type { ClientState } from '../../acp/client-state.js'
import { checkedLoadRequest } from '../../acp/requests/load-params.js'
import { LoadSessionRequest } from '../../acp/schema/acp-load.gen.js'
import { readV2Request } from '../../acp/v2/reader.js'
import { ClientView } from '../../acp/views/client-view.js'
import { ReplayHead } from '../../acp/views/replay/replay-head.js'
import type { EarlyReplay } from '../../acp/views/replay/shown-head.js'
import type { WireId } from '../../jsonrpc/index.js'
import { nodeFileSystem } from '../../persistence/fs/file-system.js'
import { visitSessionFile } from '../../persistence/read/visit-session-file.js'
import { isPostgresUrl, resolveStoreDir, StorePaths } from '../../persistence/store-paths.js'
import { StoredLogChecker } from '../../session/log/log-building.js'
import { requestOfLine } from './early-initialize.js'

/** Where an early load reads and writes, and for whom. */
export interface EarlyLoadTarget {
  /** The client of the `initialize` answered early. */
  readonly client: ClientState
  /** `--store` as the options have it: a directory, a database URL (not read early), null for none. */
  readonly store: string | null | undefined
  /** Writes protocol lines to the output, in order, before the connection does. */
  readonly write: (text: string) => void
}

/**
 * Sends the first updates of a `session/load` that came right after the `initialize` answered
 * early, while the server is not built yet (an editor reopening a session waits for the server to
 * be built otherwise): when `line` is that request (a v2 client's `session/resume` from the start
 * too), its params pass every check the handler makes first (the schema's, then
 * `checkedLoadRequest`), it asks for the whole replay and the session's file (read-only, nothing
 * locked or repaired) is of the request's `cwd`, the head of its replay is sent (`ReplayHead`);
 * each event passes the load's own log checks before its updates leave. Resolves what was sent,
 * for the connection's handler to go on from; undefined when nothing was (the request is then
 * served as always). Never rejects: whatever fails here is found and answered by the load itself.
 * The request is not consumed: the connection reads and answers it.
 */
export async function earlyLoad(line: Buffer, target: EarlyLoadTarget): Promise<EarlyReplay | undefined> {
  try {
    const request = loadRequestOf(line, target.client)
    const storeDir = target.store === undefined ? resolveStoreDir(process.env) : target.store
    if (request === undefined || storeDir === null || isPostgresUrl(storeDir)) return undefined
    // The official schema's check, as `validateParams` makes it, with `session/load`'s validator
    // alone (every method's would make this path load them all); the load's handler answers
    // params it refuses.
    const params = request.params === undefined ? {} : request.params
    if (!LoadSessionRequest(params)) return undefined
    const checked = await checkedLoadRequest(params as acp.LoadSessionRequest)
    if (checked.seen !== 0) return undefined
    const head = new ReplayHead(new ClientView(target.client), target.write)
    const checker = new StoredLogChecker(checked.sessionId)
    const path = new StorePaths(storeDir).sessionFile(checked.sessionId)
    const file = await nodeFileSystem.open(path, 'r')
    await visitSessionFile({ file, path, id: checked.sessionId }, 1, (event, header) => {
      if (event.seq === 1) {
        checker.header(header)
        if (header.cwd !== checked.cwd) return false
      }
      checker.event(event)
      return head.take(event, header)
    })
      .catch(() => undefined)
      .finally(() => file.close().catch(() => undefined))
    const shown = head.shown()
    return shown && { requestId: request.id, sessionId: checked.sessionId, head: shown }
  } catch {
    return undefined
  }
}

/** The id and params of the `session/load` that `line` asks for in the client's protocol version. */
function loadRequestOf(line: Buffer, client: ClientState): { id: WireId; params: unknown } | undefined {
  const message = requestOfLine(line)
  if (message === undefined) return undefined
  if (client.protocolVersion !== 2)
    return message.method === 'session/load' ? { id: message.id, params: message.params } : undefined
  if (message.method !== 'session/resume') return undefined
  const route = readV2Request(message.method, message.params)
  return route.method === 'session/load' ? { id: message.id, params: route.params } : undefined
}
