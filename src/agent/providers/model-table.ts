/** Prices per million tokens. */
export interface ModelPricing {
  readonly input: number
  readonly cachedInput?: number
  readonly output: number
  readonly currency?: string
}
