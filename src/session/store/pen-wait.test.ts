import { describe, expect, it } from 'vitest'
import { SessionError, SessionErrorCode } from '../errors.js'
import { awaitPen } from './pen-wait.js'
import type { SessionPen } from './pens.js'

const pen: SessionPen = { caughtUp: [], release: async () => {} }
/** Resolves once `done()` holds, looking again after each turn of the event loop. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve))
}

const locked = () => new SessionError(SessionErrorCode.SESSION_LOCKED, 'busy', { sessionId: 's', pid: 1 })

/** A pen held elsewhere until `free()`; a watch whose reports the test makes (`report()`). */
function elsewhere() {
  let held = true
  let listener: (() => void) | undefined
  let tries = 0
  return {
    take: async () => {
      tries++
      if (held) throw locked()
      return pen
    },
    watch: (onChange: () => void) => {
      listener = onChange
      return () => {
        listener = undefined
      }
    },
    free: () => {
      held = false
    },
    report: () => listener?.(),
    get watching() {
      return listener !== undefined
    },
    get tries() {
      return tries
    },
  }
}

describe('awaitPen', () => {
  it('takes a free pen at once without saying it waits', async () => {
    let waited = false
    const got = await awaitPen(
      async () => pen,
      () => () => {},
      new AbortController().signal,
      () => {
        waited = true
      },
    )
    expect(got).toBe(pen)
    expect(waited).toBe(false)
  })

  it('without a watch, refuses as the pen does', async () => {
    const other = elsewhere()
    await expect(
      awaitPen(other.take, undefined, new AbortController().signal, () => {}),
    ).rejects.toMatchObject({
      code: SessionErrorCode.SESSION_LOCKED,
    })
  })

  it('waits while held elsewhere, tries again at each report, and takes it once let go', async () => {
    const other = elsewhere()
    let waits = 0
    const got = awaitPen(other.take, other.watch, new AbortController().signal, () => waits++)
    await until(() => other.watching)
    other.report()
    await until(() => other.tries === 2)
    other.free()
    other.report()
    expect(await got).toBe(pen)
    expect(waits).toBe(1)
    expect(other.watching).toBe(false)
  })

  it('an abort while waiting rejects with its reason and stops watching', async () => {
    const other = elsewhere()
    const abort = new AbortController()
    const got = awaitPen(other.take, other.watch, abort.signal, () => {})
    await until(() => other.watching)
    abort.abort(new Error('taken back'))
    await expect(got).rejects.toThrow('taken back')
    expect(other.watching).toBe(false)
  })

  it('another failure while waiting rejects with it', async () => {
    let first = true
    const take = async () => {
      if (first) {
        first = false
        throw locked()
      }
      throw new SessionError(SessionErrorCode.SESSION_CHANGED, 'rewound', { sessionId: 's' })
    }
    let report: () => void = () => {}
    const watch = (onChange: () => void) => {
      report = onChange
      return () => {}
    }
    let watched = false
    const got = awaitPen(take, watch, new AbortController().signal, () => {
      watched = true
    })
    await until(() => watched)
    report()
    await expect(got).rejects.toMatchObject({ code: SessionErrorCode.SESSION_CHANGED })
  })
})
