import type { ContentBlock } from '../../session/index.js'

/** A prompt waiting for the session's running turn (and the prompts before it) to end. */
export interface QueuedPrompt {
  /** Its id while queued (`queued_<n>`, unique in this process): what `cancelQueuedMessage` names. */
  readonly messageId: string
  readonly prompt: readonly ContentBlock[]
  /** 1 for the next to run. */
  readonly position: number
}

/** Whether a place in the line came to run, or was taken back first. */
export type PlaceOutcome = 'run' | 'cancelled'

/** One prompt's place in its session's line: the head runs, the rest wait in order. */
export interface LinePlace {
  readonly messageId: string
  /** False when the line was empty: the prompt runs at once and was never shown as queued. */
  readonly queued: boolean
  /** Settles when the place comes to the head (`run`) or is taken back (`cancelled`). */
  readonly ready: Promise<PlaceOutcome>
  /**
   * At the head, the prompt waits for the session's pen, which another process holds (its turn
   * runs there): until `done`, the place is listed as waiting (position 1) and can be taken back,
   * which aborts `signal`.
   */
  awaitPen(): { readonly signal: AbortSignal; done(): void }
  /** Leaves the line (the turn ended, or the place was taken back): the next place runs. */
  release(): void
}

interface Place {
  readonly messageId: string
  readonly prompt: readonly ContentBlock[]
  settle(outcome: PlaceOutcome): void
  /** Set while the place, at the head, waits for another process's pen. */
  penWait?: AbortController | undefined
}

/**
 * The prompts of each session of this process, in the order they came: one runs (the head), the
 * others wait and run one after the other, each as its own turn. A waiting prompt can be taken
 * back; it never runs. Runtime state only: nothing of it is in the log.
 */
export class PromptQueues {
  private readonly lines = new Map<string, Place[]>()
  private readonly held = new Map<string, ContentBlock[]>()
  private joined = 0

  /** Keeps `blocks` for the session's next prompt (see {@link takeHeld}), after those kept before. */
  hold(sessionId: string, blocks: readonly ContentBlock[]): void {
    this.held.set(sessionId, [...(this.held.get(sessionId) ?? []), ...blocks])
  }

  /** The blocks kept for the session's next prompt, oldest first (and forgets them). */
  takeHeld(sessionId: string): readonly ContentBlock[] {
    const blocks = this.held.get(sessionId) ?? []
    this.held.delete(sessionId)
    return blocks
  }

  /** Puts `prompt` at the end of the session's line. */
  join(sessionId: string, prompt: readonly ContentBlock[]): LinePlace {
    const line = this.lines.get(sessionId) ?? []
    this.lines.set(sessionId, line)
    let settle: (outcome: PlaceOutcome) => void = () => {}
    const ready = new Promise<PlaceOutcome>((resolve) => {
      settle = resolve
    })
    const place: Place = { messageId: `queued_${++this.joined}`, prompt, settle }
    const queued = line.length > 0
    line.push(place)
    if (!queued) settle('run')
    return {
      messageId: place.messageId,
      queued,
      ready,
      awaitPen: () => {
        const waiting = new AbortController()
        place.penWait = waiting
        return { signal: waiting.signal, done: () => (place.penWait = undefined) }
      },
      release: () => this.leave(sessionId, place),
    }
  }

  /**
   * The session's waiting prompts, next first (the running one is not listed; one waiting for
   * another process's pen is).
   */
  waiting(sessionId: string): QueuedPrompt[] {
    const line = this.lines.get(sessionId) ?? []
    return line
      .slice(line[0]?.penWait ? 0 : 1)
      .map((place, i) => ({ messageId: place.messageId, prompt: place.prompt, position: i + 1 }))
  }

  /**
   * Takes a waiting prompt back (it settles `cancelled`, or, waiting for the pen, its wait is
   * aborted); false when none waits with this id.
   */
  takeBack(sessionId: string, messageId: string): boolean {
    const line = this.lines.get(sessionId) ?? []
    const index = line.findIndex((place) => place.messageId === messageId)
    const place = line[index]
    if (place === undefined) return false
    if (index === 0) {
      if (!place.penWait) return false
      place.penWait.abort()
      this.leave(sessionId, place)
      return true
    }
    line.splice(index, 1)
    place.settle('cancelled')
    return true
  }

  private leave(sessionId: string, place: Place): void {
    const line = this.lines.get(sessionId)
    if (!line) return
    const index = line.indexOf(place)
    if (index < 0) return
    line.splice(index, 1)
    if (index === 0) line[0]?.settle('run')
    if (line.length === 0) this.lines.delete(sessionId)
  }
}
