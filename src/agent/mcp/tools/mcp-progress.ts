/** An MCP `notifications/progress` as the SDK hands it to `onprogress`. */
export interface McpProgress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** Shortest time (ms) between two progress updates of one call sent to the editor. */
export const PROGRESS_INTERVAL_MS = 500

/** Longest progress message (characters) passed on; longer ones are cut. */
const MESSAGE_LIMIT = 300

/**
 * Passes a call's progress notifications on as text, throttled: the first at once, then at most
 * one per `intervalMs`, the latest one winning (a burst of 1,000 notifications sends a handful of
 * updates, the last of them the newest). `stop()` (the call finished) drops what is still waiting.
 */
export class ProgressRelay {
  private last = Number.NEGATIVE_INFINITY
  private waiting: string | undefined
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly send: (text: string) => void,
    private readonly hide: (text: string) => string = (text) => text,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  readonly onprogress = (progress: McpProgress): void => {
    if (this.stopped) return
    this.waiting = progressText(progress, this.hide)
    const due = this.last + this.intervalMs - Date.now()
    if (due <= 0) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), due)
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private flush(): void {
    this.timer = undefined
    const text = this.waiting
    this.waiting = undefined
    if (text === undefined || this.stopped) return
    this.last = Date.now()
    this.send(text)
  }
}

/** `Progress: 3 of 10 (30%): indexing`, or `Progress: 3` without a total. */
export function progressText(progress: McpProgress, hide: (text: string) => string = (t) => t): string {
  const count = finite(progress.progress)
  const total = progress.total !== undefined ? finite(progress.total) : undefined
  const share =
    total !== undefined && total > 0
      ? ` of ${total} (${Math.min(100, Math.round((count / total) * 100))}%)`
      : ''
  const message =
    typeof progress.message === 'string' && progress.message !== ''
      ? `: ${hide(progress.message).slice(0, MESSAGE_LIMIT)}`
      : ''
  return `Progress: ${count}${share}${message}`
}

function finite(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0
}
