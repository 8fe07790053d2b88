/** True for a non-null object that is not an array: a JSON object, as far as its type goes. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
