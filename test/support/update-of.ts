import type { SessionUpdate } from '../../src/session/index.js'

/** The `session/update` variant whose `sessionUpdate` is `K`. */
export type UpdateOf<K extends SessionUpdate['sessionUpdate']> = Extract<SessionUpdate, { sessionUpdate: K }>

/** True when `update` is the variant `kind`. */
export function isUpdateOf<K extends SessionUpdate['sessionUpdate']>(
  update: SessionUpdate | undefined,
  kind: K,
): update is UpdateOf<K> {
  return update?.sessionUpdate === kind
}

/** `update` as the variant `kind`, or undefined when it is another (or none). */
export function updateOf<K extends SessionUpdate['sessionUpdate']>(
  update: SessionUpdate | undefined,
  kind: K,
): UpdateOf<K> | undefined {
  return isUpdateOf(update, kind) ? update : undefined
}
