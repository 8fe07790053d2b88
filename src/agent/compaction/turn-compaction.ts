import type { CoreEvent } from '../../session/index.js'
import type { NoticeChannel } from '../notices/notice.js'
import { modelHistory } from '../turn/step/model-step.js'
import type { TurnScope } from '../turn/turn-scope.js'
import type { ToolSpec } from '../types.js'
import { compactionNotice } from './compaction-notice.js'
import { type CompactionResult, type CompactionTrigger, compact, summaryReserve } from './compactor.js'
import { SUMMARY_INSTRUCTION_TOKENS } from './summary-request.js'
import { estimateTokens, upperBound } from './token-estimate.js'

/** The default of `--compact-at`: compact before a request estimated above 80 % of the window. */
export const DEFAULT_COMPACT_AT = 0.8

/** When the agent compacts a session by itself. */
export interface CompactionSettings {
  /**
   * Compact before a model request estimated above this fraction of the context window (0 < x ≤ 1).
   * `false`: never by itself (`/compact` and the context-length retry still do). Default
   * {@link DEFAULT_COMPACT_AT}.
   */
  readonly compactAt?: number | false
  /**
   * The context window of a model, in tokens; undefined when unknown (then nothing is compacted by
   * itself). The one place the window comes from (today `--context-window`).
   */
  readonly contextWindow?: (model: string | undefined) => number | undefined
}

/** What a request of the turn offers right now: its tools and the session's model choice. */
export interface RequestShape {
  readonly tools: readonly ToolSpec[]
  readonly model?: string
  readonly thoughtLevel?: string
  /** The system prompt the step sends (absent: none, as for a provider that takes none). */
  readonly system?: string
}

/**
 * Compaction inside one turn: before a model request that would pass the threshold, after a
 * context-length failure (once per step), and for `/compact`. Each summarizes through the boundary
 * before the turn's `turn/start` (a closed turn boundary), so the running turn stays as it is.
 */
export class TurnCompaction {
  constructor(
    /** The turn's session, model, signal and update channel. */
    private readonly scope: Pick<TurnScope, 'session' | 'provider' | 'signal' | 'send'>,
    private readonly settings: CompactionSettings,
    /** The seq of the turn's `turn/start`. */
    private readonly turnStart: number,
    /** Hears each compaction this turn completed (the turn says it as a notice). */
    private readonly completed: (event: CoreEvent<'context/compaction'>) => void = () => {},
  ) {}

  private window(shape: RequestShape): number | undefined {
    return this.settings.contextWindow?.(shape.model)
  }

  /** Compacts now, for `trigger`. */
  async run(
    trigger: CompactionTrigger,
    shape: RequestShape,
    extra: { instructions?: string; tokensBefore?: number } = {},
  ): Promise<CompactionResult> {
    const window = this.window(shape)
    const result = await compact(
      {
        session: this.scope.session,
        provider: this.scope.provider,
        tools: shape.tools,
        ...(shape.model !== undefined && { model: shape.model }),
        ...(shape.thoughtLevel !== undefined && { thoughtLevel: shape.thoughtLevel }),
        ...(shape.system !== undefined && { system: shape.system }),
        signal: this.scope.signal,
        send: this.scope.send,
        ...(window !== undefined && { window }),
      },
      { trigger, through: this.turnStart - 1, ...extra },
    )
    if (result.status === 'completed') this.completed(result.event)
    return result
  }

  /**
   * The automatic trigger: compacts when the next request (the session's model view now) is
   * estimated above the threshold of the window. Undefined, at once (no await: a step with nothing
   * to wait for starts in the same tick), when no window is known, the trigger is off, or the
   * request's byte bound is under the threshold; else resolves undefined when it was not needed.
   */
  beforeRequest(shape: RequestShape): Promise<CompactionResult | undefined> | undefined {
    const window = this.window(shape)
    const at = this.settings.compactAt ?? DEFAULT_COMPACT_AT
    if (window === undefined || at === false) return undefined
    const request = {
      system: shape.system ?? '',
      cwd: this.scope.session.cwd,
      messages: modelHistory(this.scope.session),
      tools: shape.tools,
    }
    const limit = triggerLimit(window, at)
    if (upperBound(request) <= limit) return undefined
    return estimateTokens(request).then(async (tokens) => {
      if (tokens <= limit) return undefined
      const result = await this.run('auto', shape, { tokensBefore: tokens })
      return result.status === 'nothing' ? undefined : result
    })
  }
}

/**
 * The request size (tokens) above which a turn compacts: `at` of the window, but never more than
 * what the summary request may hold (the window less the summary's reserve and its instruction),
 * so on a small window (under about 40k tokens at 0.8) the conversation is summarized whole, its
 * first request included, rather than cut from the start to fit.
 */
export function triggerLimit(window: number, at: number): number {
  return Math.max(
    1,
    Math.min(Math.floor(window * at), window - summaryReserve(window) - SUMMARY_INSTRUCTION_TOKENS),
  )
}

/** A turn's compaction whose completed compactions the turn says as notices (`compactionNotice`). */
export function turnCompaction(
  scope: Pick<TurnScope, 'session' | 'provider' | 'signal' | 'send'>,
  settings: CompactionSettings,
  turnStart: number,
  notices: NoticeChannel,
): TurnCompaction {
  return new TurnCompaction(scope, settings, turnStart, (event) =>
    notices.say(compactionNotice(event.data), event.seq, 'log'),
  )
}
