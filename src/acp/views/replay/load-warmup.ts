import {
  type ProjectionOptions,
  type SessionEvent,
  type SessionHeader,
  type SessionStore,
  UpdateProjector,
} from '../../../session/index.js'
import { validateParams } from '../../validate-params.js'
import { ReplayTurnEnds } from './replay-turn-ends.js'
import { splicedLine } from './stored-line-splice.js'

/** How many events of the stored session the warm-up reads at most (about one turn of tool use). */
const WARM_EVENTS = 16

/**
 * Runs, once and sending nothing, the code a `session/load` replay runs, so that the first load of
 * a process does not wait while V8 compiles it (a function is compiled on its first call): checks a
 * load request's params, reads the first events of the most recent stored session without opening
 * it (no lock, nothing repaired or made live), projects them as a replay does and serializes the
 * notifications (`configUpdates` as the load's projection has them). It stops reading as soon as
 * `busy()` says a call came in (the warm-up must not delay it). Resolves when done; never rejects
 * (a store it cannot read warms less).
 */
export async function warmLoadPath(
  store: SessionStore,
  configUpdates?: ProjectionOptions['configUpdates'],
  busy: () => boolean = () => false,
): Promise<void> {
  try {
    validateParams('session/load', { sessionId: 'warm_up', cwd: '/', mcpServers: [] })
    const { sessions } = await store.list({ limit: 1 })
    const latest = sessions[0]
    if (latest === undefined || busy()) return
    let projector: UpdateProjector | undefined
    let seen = 0
    const turnEnds = new ReplayTurnEnds((event, updates) => {
      for (const update of updates) {
        const message = { jsonrpc: '2.0', method: 'session/update', params: update }
        if (splicedLine(message, event) === undefined) JSON.stringify(message)
      }
      return undefined
    })
    await store.visitEvents(latest.sessionId, 1, (event: SessionEvent, header: SessionHeader) => {
      projector ??= new UpdateProjector(header.id, configUpdates ? { configUpdates } : {})
      turnEnds.push(event, projector.updatesFor(event))
      return ++seen < WARM_EVENTS && !busy()
    })
    turnEnds.flush()
  } catch {
    // Nothing to warm with: the first load compiles what it runs, as it always did.
  }
}
