import type { SubagentMarker } from '../header.js'
import type { SessionId } from '../ids.js'
import type { Session } from '../session.js'
import { assertChildId, type ForkSeed, forkChild } from '../store/new-session.js'
import type { StoreHost } from '../store/store-host.js'
import { forkTitle } from '../title.js'
import { liveForkSource, resolveForkBoundary } from './fork.js'
import { checkSubagentMarker, subagentBoundary } from './subagent-fork.js'

/** A fork's source: a live session, or the id of one. */
export type SessionForkSource = Session | SessionId

/** What a fork needs of the store: its live sessions, its ids and clock, and how it admits a child. */
export interface ForkSpawner {
  readonly live: ReadonlyMap<SessionId, Session>
  /** True when `id` is live or being loaded. */
  taken(id: SessionId): boolean
  mintId(): SessionId
  now(): string
  readonly host: StoreHost
  /** Makes `child` live and announces it (`session/created`). */
  admit(child: Session): Session
}

/** `SessionStore.fork`: a live child of `source` through `boundary` (default its last event). */
export function forkLive(
  spawner: ForkSpawner,
  source: SessionForkSource,
  boundary: number | undefined,
  childSessionId: SessionId | undefined,
): Session {
  const parent = liveForkSource(source, (id) => spawner.live.get(id))
  const title = forkTitle(parent.title)
  return spawn(spawner, {
    parent,
    copied: resolveForkBoundary(parent, boundary),
    childId: childSessionId,
    extra: { ...(title !== undefined && { title }) },
  })
}

/** `SessionStore.forkSubagent`: a live child of `source` clipped to its last completed turn. */
export function forkSubagentLive(
  spawner: ForkSpawner,
  source: SessionForkSource,
  marker: SubagentMarker,
  options: { readonly childSessionId?: SessionId; readonly title?: string },
): Session {
  const subagent = checkSubagentMarker(marker)
  const parent = liveForkSource(source, (id) => spawner.live.get(id))
  const title = options.title ?? parent.explicitTitle
  return spawn(spawner, {
    parent,
    copied: subagentBoundary(parent),
    childId: options.childSessionId,
    extra: { subagent, ...(title !== undefined && { title }) },
  })
}

/** A live child of the seed's parent (its id minted when the seed names none). */
function spawn(
  spawner: ForkSpawner,
  seed: Omit<ForkSeed, 'childId'> & { childId: SessionId | undefined },
): Session {
  const childId = seed.childId ?? spawner.mintId()
  assertChildId(childId, (id) => spawner.taken(id))
  return spawner.admit(forkChild({ ...seed, childId }, spawner.now(), spawner.host))
}
