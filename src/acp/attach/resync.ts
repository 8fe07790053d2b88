import { noticeUpdate } from '../../agent/index.js'
import type { Session, SessionUpdateNotification } from '../../session/index.js'

/**
 * How many first events `stale` (this process's view of a session) and `fresh` (its log read again
 * after another process replaced the file: a rewind) have in common: a rewind keeps a prefix of
 * the log, and what was appended after it has new times. Only seq, type and time are compared (a
 * stale view's large events can no longer be read).
 */
export function keptPrefix(stale: Session, fresh: Session): number {
  const last = Math.min(stale.lastSeq, fresh.lastSeq)
  for (let seq = 1; seq <= last; seq++) {
    const a = stale.at(seq)
    const b = fresh.at(seq)
    if (!a || !b || a.type !== b.type || a.time !== b.time) return seq - 1
  }
  return last
}

/**
 * What an attached client is told when another process replaced the session's log: a warning
 * notice (an agent message for a client without notices), the notice's `_meta.dsh.resync`: `keptSeq`, the
 * last event still as it saw it, and `lastSeq`, where the log ends now. The updates of the events
 * after `keptSeq` follow it, as a replay shows them.
 */
export function resyncNotice(session: Session, keptSeq: number): SessionUpdateNotification {
  const title = 'This session was changed in another window'
  const description =
    `Another process rewound or replaced its history: what you saw up to event ${keptSeq} stands, ` +
    'everything after it is gone. What the history holds after it now follows.'
  return {
    sessionId: session.id,
    update: {
      ...noticeUpdate({ severity: 'warning', title, description }, `${title}. ${description}\n`),
      _meta: { dsh: { resync: { keptSeq, lastSeq: session.lastSeq } } },
    },
  }
}

/** What an attached client is told when another process removed the session: it is detached. */
export function goneNotice(sessionId: string, reason: string): SessionUpdateNotification {
  const title = 'This session was removed in another window'
  const description = `It can no longer be followed here (${reason}).`
  return {
    sessionId,
    update: {
      ...noticeUpdate({ severity: 'warning', title, description }, `${title}. ${description}\n`),
      _meta: { dsh: { resync: { removed: true } } },
    },
  }
}
