import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendAll, startStore } from '../../test/support/session-store.js'
import { validLogArbitrary } from '../../test/support/valid-log.js'
import { sessionConfig } from './config.js'

describe('sessionConfig: the configuration is a projection of the log', () => {
  it('is the last value per option; mode, model and thoughtLevel read their options', async () => {
    const store = await startStore()
    try {
      const session = store.sessions.create()
      expect(session.config).toMatchObject({ values: {}, mode: undefined, model: undefined })
      appendAll(session, [
        { type: 'config/set', data: { option: 'mode', value: 'read-only' } },
        { type: 'config/set', data: { option: 'model', value: 'a' } },
        { type: 'config/set', data: { option: 'mode', value: 'accept-edits' } },
        { type: 'config/set', data: { option: 'thought_level', value: 'high' } },
        { type: 'config/set', data: { option: 'flag', value: true } },
      ])
      expect(session.config).toEqual({
        values: { mode: 'accept-edits', model: 'a', thought_level: 'high', flag: true },
        mode: 'accept-edits',
        model: 'a',
        thoughtLevel: 'high',
      })
      expect(() => session.append({ type: 'config/set', data: { option: '', value: 'x' } })).toThrow()
      expect(() =>
        session.append({ type: 'config/set', data: { option: 'mode', value: 3 } as never }),
      ).toThrow()
    } finally {
      await store.stop()
    }
  })

  it('live, loaded and forked: equal to the projection of the same events (a child inherits at its boundary)', async () => {
    const store = await startStore()
    try {
      fc.assert(
        fc.property(validLogArbitrary(30), fc.nat(), (inputs, pick) => {
          const session = appendAll(store.sessions.create(), inputs)
          expect(session.config).toEqual(sessionConfig(session.events()))
          const boundaries = [0, ...session.turnSpans().map((t) => t.end ?? 0), session.lastSeq].filter(
            (b) => b >= 0,
          )
          const boundary = boundaries[pick % boundaries.length] as number
          let child: ReturnType<typeof store.sessions.fork>
          try {
            child = store.sessions.fork(session, boundary)
          } catch {
            return
          }
          expect(child.config).toEqual(sessionConfig(session.eventsThrough(boundary)))
        }),
        { numRuns: 60 },
      )
    } finally {
      await store.stop()
    }
  })
})
