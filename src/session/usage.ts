import { type Cost, extensionData, type SessionEvent, type TokenUsage } from './log/events.js'
import { keptDataOf } from './log/stored-event.js'

/**
 * Usage and cost are projections of the log, like the model's history:
 *
 * - **used** (tokens in context) is the input plus output tokens of the latest step that reported
 *   usage, wherever it stands: a fork child's inherited steps count, since the child's model is
 *   sent that same context.
 * - **cost** is what the session itself spent: the `cost` of each of its own steps (`seq` past its
 *   seed), summed in the currency of the latest priced step (a step priced in another currency is
 *   left out). A fork child starts from zero. Each `turn/end` records the total so far, so the sum
 *   starts from the latest `turn/end` that has one and a listing reads it from the log's tail. A
 *   rewind never lowers it: its `rewind:marker` records what the session had spent, a total like
 *   a `turn/end`'s (the removed steps' costs stay counted).
 */
export interface UsageView {
  /** The events, oldest first, `at(seq)` for `seq` in `1..lastSeq`. */
  at(seq: number): SessionEvent | undefined
  readonly lastSeq: number
  /** The length of the inherited prefix (a fork child's seed); 0 for a session of its own. */
  readonly seedLength: number
  /**
   * The seqs of the events that may hold a cost ({@link mayHoldCost}), oldest first, where the view
   * keeps them: the cost then reads those alone, not every event since the last one priced (a long
   * log priced nowhere was read whole at each rewind).
   */
  readonly pricedSeqs?: readonly number[]
}

/** The tokens in context: input + output of the latest step that reported usage; undefined when none did. */
export function usedTokens(view: UsageView): number | undefined {
  for (let seq = view.lastSeq; seq >= 1; seq--) {
    const usage = stepUsage(view.at(seq))
    if (usage !== undefined) return usage.inputTokens + usage.outputTokens
  }
  return undefined
}

/** A step's usage; a stand-in's without reading its body back (`keptDataOf`). */
function stepUsage(event: SessionEvent | undefined): TokenUsage | undefined {
  if (event?.type !== 'assistant/message') return undefined
  return (keptDataOf(event) ?? event.data).usage
}

/** The session's own cost so far (see {@link UsageView}); undefined when none of its steps was priced. */
export function ownCost(view: UsageView): Cost | undefined {
  let currency: string | undefined
  let amount = 0
  for (const event of costCandidates(view)) {
    const cost = costOf(event)
    if (cost === undefined) continue
    currency ??= cost.currency
    if (cost.currency === currency) amount += cost.amount
    if (event.type !== 'assistant/message') break
  }
  return currency === undefined ? undefined : { amount: roundAmount(amount), currency }
}

/**
 * The session's own events that may hold a cost, newest first: those {@link UsageView.pricedSeqs}
 * names when the view keeps them (no other event holds one), else every own event.
 */
function* costCandidates(view: UsageView): Generator<SessionEvent> {
  const seqs = view.pricedSeqs
  if (seqs === undefined) {
    for (let seq = view.lastSeq; seq > view.seedLength; seq--) {
      const event = view.at(seq)
      if (event !== undefined) yield event
    }
    return
  }
  for (let i = seqs.length - 1; i >= 0; i--) {
    const seq = seqs[i] as number
    if (seq <= view.seedLength) return
    const event = seq <= view.lastSeq ? view.at(seq) : undefined
    if (event !== undefined) yield event
  }
}

/** Whether an event of this type may hold a cost (see {@link costOf}). */
export function mayHoldCost(type: string): boolean {
  return type === 'assistant/message' || type === 'turn/end' || type === 'rewind:marker'
}

/** What a step cost, or the total so far a `turn/end` or a rewind's marker records. */
function costOf(event: SessionEvent): Cost | undefined {
  if (event.type === 'assistant/message' || event.type === 'turn/end')
    return (keptDataOf(event) ?? event.data).cost
  return extensionData(event, 'rewind:marker')?.cost
}

/** `amount` to 10 decimal places: a sum of many steps keeps no float dust (0.30000000000000004). */
export function roundAmount(amount: number): number {
  return Math.round(amount * 1e10) / 1e10
}

/** What one turn's steps reported, summed; undefined when none reported usage. */
export interface TurnUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  /** Present when some step reported it. */
  readonly cachedInputTokens?: number
  readonly reasoningTokens?: number
}

/** The usage of the turn whose `turn/start` is the latest one at or before `lastSeq`. */
export function lastTurnUsage(view: UsageView): TurnUsage | undefined {
  let total: { -readonly [K in keyof TurnUsage]: TurnUsage[K] } | undefined
  for (let seq = view.lastSeq; seq >= 1; seq--) {
    const event = view.at(seq)
    if (event === undefined) continue
    if (event.type === 'turn/start') break
    const usage = stepUsage(event)
    if (usage === undefined) continue
    total = add(total ?? { inputTokens: 0, outputTokens: 0 }, usage)
  }
  return total
}

function add(total: { -readonly [K in keyof TurnUsage]: TurnUsage[K] }, usage: TokenUsage) {
  total.inputTokens += usage.inputTokens
  total.outputTokens += usage.outputTokens
  if (usage.cachedInputTokens !== undefined)
    total.cachedInputTokens = (total.cachedInputTokens ?? 0) + usage.cachedInputTokens
  if (usage.reasoningTokens !== undefined)
    total.reasoningTokens = (total.reasoningTokens ?? 0) + usage.reasoningTokens
  return total
}
