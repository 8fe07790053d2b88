/**
 * The end of an exhaustive `switch`: it compiles only when every case of `value`'s union was
 * handled, and throws if a value outside the union reaches it at run time anyway.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`)
}
