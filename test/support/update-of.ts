import type { SessionUpdate, WireUpdate } from '../../src/session/index.js'

/** An update as the agent emits it (canonical) or as a client's view renders it (wire). */
type AnyUpdate = SessionUpdate | WireUpdate

/** True when `update` is the variant `kind`. */
export function isUpdateOf<U extends AnyUpdate, K extends U['sessionUpdate']>(
  update: U | undefined,
  kind: K,
): update is Extract<U, { sessionUpdate: K }> {
  return update?.sessionUpdate === kind
}

/** `update` as the variant `kind`, or undefined when it is another (or none). */
export function updateOf<U extends AnyUpdate, K extends U['sessionUpdate']>(
  update: U | undefined,
  kind: K,
): Extract<U, { sessionUpdate: K }> | undefined {
  return isUpdateOf(update, kind) ? update : undefined
}
