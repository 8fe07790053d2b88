/** The plain values events hold: JSON, token counts and money. Imports nothing, so every event module can. */

type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue }
export type JsonObject = { readonly [key: string]: JsonValue }

export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedInputTokens?: number
  readonly reasoningTokens?: number
}

/** An amount of money (or of another unit, e.g. credits), as ACP's `Cost` has it. */
export interface Cost {
  readonly amount: number
  /** An ISO 4217 code (`USD`), or another unit. */
  readonly currency: string
}
