import type { SessionUpdateNotification } from '../../session/index.js'

/** What a session is doing, as its attached clients are told: no turn, a turn, a turn asking. */
export type SessionActivity = 'idle' | 'running' | 'waiting'

/** Who has a session open in this process and what it is doing (`_meta.dsh.presence`). */
export interface Presence {
  /** How many connections are attached. */
  readonly attached: number
  /** The `clientInfo.name` of each that gave one, in the order they attached. */
  readonly clients: readonly string[]
  readonly state: SessionActivity
}

/** The `session_info_update` carrying `presence`. */
export function presenceUpdate(sessionId: string, presence: Presence): SessionUpdateNotification {
  return {
    sessionId,
    update: {
      sessionUpdate: 'session_info_update',
      _meta: { dsh: { presence: { ...presence, clients: [...presence.clients] } } },
    },
  }
}

/** Whether `next` says something `last` did not (the first, once someone else is attached). */
export function presenceChanged(last: Presence | undefined, next: Presence): boolean {
  if (!last) return next.attached > 1
  return (
    last.attached !== next.attached ||
    last.state !== next.state ||
    last.clients.join('\n') !== next.clients.join('\n')
  )
}

/**
 * The presence of a session: this process's clients (`here`: how many, the names of those that
 * gave one) and those of other processes (`elsewhere`); waiting when a question waits here or
 * elsewhere, else running while a turn is open.
 */
export function presenceOf(
  here: { readonly attached: number; readonly clients: readonly string[] },
  elsewhere: { readonly attached: number; readonly clients: readonly string[]; readonly waiting: boolean },
  waitingHere: boolean,
  turnOpen: boolean,
): Presence {
  const state = waitingHere || elsewhere.waiting ? 'waiting' : turnOpen ? 'running' : 'idle'
  return {
    attached: here.attached + elsewhere.attached,
    clients: [...here.clients, ...elsewhere.clients],
    state,
  }
}
