import {
  type Cost,
  ownCost,
  roundAmount,
  type Session,
  type SessionUpdate,
  type TokenUsage,
  usedTokens,
} from '../../../session/index.js'
import { DEFAULT_CURRENCY, type ModelPricing } from '../../providers/model-table.js'
import type { ModelProvider } from '../../types.js'

const PER_MILLION = 1_000_000

/**
 * What one step cost at `pricing`: uncached input at `input`, cached input (the server's
 * `cachedInputTokens`, part of the input) at `cachedInput` (default: `input`), output (reasoning
 * included, as servers count it) at `output`; all per million tokens, in the price's currency
 * (default USD).
 */
export function stepCost(usage: TokenUsage, pricing: ModelPricing): Cost {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens)
  const amount =
    ((usage.inputTokens - cached) * pricing.input +
      cached * (pricing.cachedInput ?? pricing.input) +
      usage.outputTokens * pricing.output) /
    PER_MILLION
  return { amount: roundAmount(amount), currency: pricing.currency ?? DEFAULT_CURRENCY }
}

/**
 * The session's `usage_update` as its log stands (see `usedTokens`, `ownCost`): `used`, `size`, and
 * `cost` when some own step was priced, or zero in the price's currency when none was but the
 * model has a `pricing` now (a fork child of a priced session starts at zero). Undefined when no
 * step reported usage or `size` is unknown (ACP requires `size`: without a window, nothing is sent).
 */
export function usageUpdateOf(
  session: Session,
  size: number | undefined,
  pricing?: ModelPricing,
): SessionUpdate | undefined {
  const used = usedTokens(session)
  if (used === undefined || size === undefined) return undefined
  const cost =
    ownCost(session) ??
    (pricing === undefined ? undefined : { amount: 0, currency: pricing.currency ?? DEFAULT_CURRENCY })
  return { sessionUpdate: 'usage_update', used, size, ...(cost !== undefined && { cost }) }
}

/** The session's `usage_update` for its current model (as a load or a fork shows it), if any. */
export function sessionUsageUpdate(
  session: Session,
  provider: ModelProvider,
  model: string,
): SessionUpdate | undefined {
  return usageUpdateOf(session, windowOf(provider, model), provider.pricing?.(model))
}

/** The context window of `model` as `provider` knows it, unless the step's usage chunk said. */
export function windowOf(provider: ModelProvider, model: string, reported?: number): number | undefined {
  return reported ?? provider.contextWindow?.(model)
}
