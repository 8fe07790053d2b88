import type { Context } from 'cordis'
import type { Session } from '../session.js'
import type { SessionPersistence } from './persistence-port.js'

export type DisposeReason = 'closed' | 'deleted' | 'stopped'

/** Makes each of `sessions` durable through the backends (`session/flush`); one whose write failed rejects with that failure. */
export async function flushSessions(ctx: Context, sessions: readonly Session[]): Promise<void> {
  await Promise.all(
    sessions.map(async (session) => {
      if (session.writeFailure) throw session.writeFailure
      await ctx.parallel('session/flush', session)
    }),
  )
}

declare module 'cordis' {
  interface Context {
    persistence?: SessionPersistence
  }
  interface Events {
    /** A new session (created or forked) is live; its seed, if any, is in `session.events()`. */
    'session/created'(session: Session): void
    /** A persisted session was loaded and is live again. */
    'session/loaded'(session: Session): void
    /** Make everything appended to `session` so far durable; rejects when that failed. */
    'session/flush'(session: Session): Promise<void>
    /** A live session left memory. */
    'session/disposed'(session: Session, reason: DisposeReason): void
  }
}
