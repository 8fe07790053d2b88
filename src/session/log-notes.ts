import { type ConfigValue, configOf, type SessionConfig } from './config.js'
import { type CoreEvent, extensionData, type SessionEvent } from './log/events.js'
import { titleFromContent } from './title.js'
import { mayHoldCost } from './usage.js'

/**
 * What a live session keeps of its log as events join it, so that reading it costs no scan: the
 * last own title, the first prompt, the events that may hold a cost, the configuration, the
 * workspace directories, the archive state and the rewind generations.
 */
export class LogNotes {
  /** The last own `session/title` event (not one of an inherited fork seed). */
  titleEvent: CoreEvent<'session/title'> | undefined
  /** The seqs of the events that may hold a cost, oldest first. */
  readonly priced: number[] = []
  /** The first `user/message`. */
  prompt: CoreEvent<'user/message'> | undefined
  /** The projection of `config/set` events. */
  config: SessionConfig
  /** The data of the last `session/directories` event. */
  directories: readonly string[] = []
  /** The data of the last own `session/archived` event (a fork child's seed does not count). */
  archived = false
  /** The `rewind:marker` events of the log, oldest first: where each rewind generation starts. */
  private readonly generations: { readonly seq: number; readonly generation: number }[] = []

  /**
   * Notes what `log` holds; `seedLength` events of it are a fork child's inherited seed. One pass
   * over the log (a session of 25,000 events is built at each load and rewind).
   */
  constructor(
    log: readonly SessionEvent[],
    private readonly seedLength: number,
  ) {
    const values: Record<string, ConfigValue> = Object.create(null)
    for (let i = 0; i < log.length; i++) {
      const event = log[i] as SessionEvent
      this.index(event)
      const own = i >= seedLength
      // A fork child's header title is its own: only its own `session/title` events replace it.
      if (event.type === 'session/title') {
        if (own) this.titleEvent = event
      } else if (event.type === 'session/archived') {
        if (own) this.archived = event.data.archived
      } else if (event.type === 'session/directories') this.directories = event.data.directories
      else if (event.type === 'config/set') values[event.data.option] = event.data.value
    }
    this.config = configOf(values)
  }

  /** The rewind generation at `seq`: that of the last `rewind:marker` before it, 0 when none is. */
  generationAt(seq: number): number {
    for (let i = this.generations.length - 1; i >= 0; i--) {
      const marker = this.generations[i] as { seq: number; generation: number }
      if (marker.seq < seq) return marker.generation
    }
    return 0
  }

  /** The current title and the seq of its event (see `Session.titleOrigin`), given the header's title. */
  titleOrigin(
    headerTitle: string | undefined,
  ): { readonly title: string; readonly seq?: number } | undefined {
    if (this.titleEvent) return { title: this.titleEvent.data.title, seq: this.titleEvent.seq }
    if (headerTitle !== undefined) return { title: headerTitle }
    // The first prompt, noted as events join the log: a title read does not read the whole log.
    if (this.prompt === undefined) return undefined
    const title = titleFromContent(this.prompt.data.content)
    return title === undefined ? undefined : { title, seq: this.prompt.seq }
  }

  /** Notes an event that joined the log (appended, or adopted from another process). */
  note(event: SessionEvent): void {
    this.index(event)
    if (event.type === 'session/title') {
      if (event.seq > this.seedLength) this.titleEvent = event
    } else if (event.type === 'session/directories') this.directories = event.data.directories
    else if (event.type === 'session/archived') this.archived = event.data.archived
    else if (event.type === 'config/set') {
      this.config = configOf({ ...this.config.values, [event.data.option]: event.data.value })
    }
  }

  /** Indexes an event as it joins the log: its seq when it may hold a cost, the first prompt, a rewind marker's generation. */
  private index(event: SessionEvent): void {
    if (mayHoldCost(event.type)) this.priced.push(event.seq)
    if (this.prompt === undefined && event.type === 'user/message') this.prompt = event
    if (event.type !== 'rewind:marker') return
    const marker = extensionData(event, 'rewind:marker')
    if (marker) this.generations.push({ seq: event.seq, generation: marker.generation })
  }
}
