import type { SessionHeader } from '../../session/header.js'
import type { SessionEvent } from '../../session/log/events.js'
import { titleFromContent } from '../../session/title.js'
import { ownCost } from '../../session/usage.js'
import type { Projection } from '../postgres/rows.js'

/**
 * The listing columns of a session read event by event, as a live session computes its summary
 * (`Session.summary`): the last own `session/title` (a fork child's seed does not count), else the
 * header's, else one derived from the first prompt; the last own `session/archived`; its own cost
 * (`ownCost`); the last event's time, never before its creation.
 */
export class ListingFold {
  private titleSet: string | undefined
  private derived: string | undefined
  private derivedDone = false
  private archived = false
  private lastTime: string | undefined
  private lastSeq = 0
  /** The events `ownCost` may look at: those since the last total recorded (a turn end, a marker). */
  private costly = new Map<number, SessionEvent>()

  constructor(private readonly header: SessionHeader) {}

  add(event: SessionEvent): void {
    const own = event.seq > (this.header.seedLength ?? 0)
    this.lastSeq = event.seq
    this.lastTime = event.time
    if (own && event.type === 'session/title') this.titleSet = event.data.title
    if (own && event.type === 'session/archived') this.archived = event.data.archived
    if (!this.derivedDone && event.type === 'user/message') {
      this.derivedDone = true
      this.derived = titleFromContent(event.data.content)
    }
    this.noteCost(event)
  }

  private noteCost(event: SessionEvent): void {
    const data = event.data as { cost?: unknown }
    if (event.type === 'assistant/message') {
      if (data.cost !== undefined) this.costly.set(event.seq, event)
      return
    }
    if (data.cost === undefined || (event.type !== 'turn/end' && event.type !== 'rewind:marker')) return
    this.costly = new Map([[event.seq, event]])
  }

  projection(): Projection {
    const created = this.header.createdAt
    const time = this.lastTime
    const cost = ownCost({
      lastSeq: this.lastSeq,
      seedLength: this.header.seedLength ?? 0,
      at: (seq) => this.costly.get(seq),
    })
    return {
      updatedAt: time !== undefined && time > created ? time : created,
      title: this.titleSet ?? this.header.title ?? this.derived ?? null,
      archived: this.archived,
      cost: cost === undefined ? null : JSON.stringify(cost),
    }
  }
}
