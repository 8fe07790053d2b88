import type { SessionHeader } from '../../../session/header.js'
import type { SessionEvent } from '../../../session/log/events.js'
import { SUBAGENT_SPAWNED } from '../../../session/projection/update-builders.js'
import type { ProjectionOptions } from '../../../session/projection/update-types.js'
import { UpdateProjector } from '../../../session/projection/updates.js'
import type { ClientView } from '../client-view.js'
import { ReplayTurnEnds } from './replay-turn-ends.js'
import { HeadDigest, type ShownHead } from './shown-head.js'

/**
 * The projection of a replay of the session of `header` (see `replayProjector`, which gives it the
 * agent's `configUpdates`; the early head has none and ends before a `config/set`).
 */
export function headerProjector(
  header: SessionHeader,
  configUpdates?: ProjectionOptions['configUpdates'],
): UpdateProjector {
  return new UpdateProjector(header.id, {
    ...(configUpdates && { configUpdates }),
    ...(header.title !== undefined && { headerTitle: header.title }),
  })
}

/**
 * Events the head ends before: a `config/set` (its updates need the agent's options, not built
 * yet) and a delegation (a client that shows subagents is sent the child's turn, read from the
 * store).
 */
const UNSHOWN_EARLY: ReadonlySet<string> = new Set(['config/set', SUBAGENT_SPAWNED])

/** How many events the head reads at most before it gives up sending anything. */
const MAX_HEAD_EVENTS = 64

/**
 * The first updates of a `session/load` replay, for a process whose server is not built yet
 * (process/early-start/early-load.ts): fed the stored events in order, it sends each update as
 * the client's `view` renders it, exactly as the load's replay would (`replayProjector` and
 * `ReplayTurnEnds`, so each turn's last update still waits for how the turn ended), and asks for
 * no more events once something was sent. It stops before the events of {@link UNSHOWN_EARLY}
 * and after {@link MAX_HEAD_EVENTS} events. What it sent is {@link shown}: the load's replay goes
 * on from there.
 */
export class ReplayHead {
  private projector: UpdateProjector | undefined
  private header: SessionHeader | undefined
  private readonly turnEnds: ReplayTurnEnds
  private readonly read: SessionEvent[] = []
  private sentThrough = 0

  constructor(view: ClientView, write: (line: string) => void) {
    this.turnEnds = new ReplayTurnEnds((event, updates) => {
      for (const update of updates) {
        for (const params of view.render(update))
          write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params })}\n`)
      }
      if (updates.length > 0) this.sentThrough = event.seq
      return undefined
    })
  }

  /**
   * Feeds the next stored event of the session of `header`. False: feed no more (something was
   * sent; or the head ends before this event, which is then not taken).
   */
  take(event: SessionEvent, header: SessionHeader): boolean {
    if (UNSHOWN_EARLY.has(event.type) || this.read.length >= MAX_HEAD_EVENTS) return false
    this.header ??= header
    this.projector ??= headerProjector(header)
    this.read.push(event)
    this.turnEnds.push(event, this.projector.updatesFor(event))
    return this.sentThrough === 0
  }

  /** What was sent, with the digest of what it came from; undefined when nothing was. */
  shown(): ShownHead | undefined {
    if (this.sentThrough === 0 || this.header === undefined) return undefined
    const digest = new HeadDigest(this.header)
    for (const event of this.read) if (event.seq <= this.sentThrough) digest.add(event)
    return { sentThrough: this.sentThrough, digest: digest.digest() }
  }
}
