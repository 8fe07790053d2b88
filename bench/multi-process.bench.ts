import { lstatSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Session } from '../src/session/index.js'
import type { BenchRow } from './harness.js'
import { type Store, startStore, timeEach } from './persistence-store.js'

/**
 * Issue 27, several processes on one store (two stores of this process stand for two processes:
 * the lock file and the expected-version check are the same).
 * - A turn's appends and flush with the pen, the view current (take: lock file + one `lstat`;
 *   release: the lock let go once durable), next to the same turn on a backend without pens (as
 *   before: the lock was taken once at open and held).
 * - The pen alone on a current view, next to one `lstat` of the session file.
 * - Catching up on a 1,000-event tail another store appended (`takePen` reads and adopts it),
 *   next to a fresh load of a session of the same 1,000 events.
 */

const RUNS = 15
const TAIL = 1000

function appendTurn(session: Session, text: string): void {
  const turn = session.lastTurn + 1
  session.append({ type: 'turn/start', data: { turn } })
  session.append({ type: 'user/message', data: { turn, content: [{ type: 'text', text }] } })
  session.append({ type: 'step/start', data: { turn, step: 1 } })
  session.append({ type: 'assistant/message', data: { turn, step: 1, content: `answer to ${text}` } })
  session.append({ type: 'step/end', data: { turn, step: 1 } })
  session.append({ type: 'turn/end', data: { turn, reason: 'completed' } })
}

/** One turn as the agent writes it: pen taken, six events, flush, pen let go. */
async function turn(store: Store, session: Session): Promise<void> {
  const pen = store.sessions.takePen(session)
  appendTurn(session, 'question')
  await store.sessions.flush(session.id)
  await pen.release()
}

function notes(session: Session, count: number): void {
  for (let i = 0; i < count; i++) {
    session.append({ type: 'context/note', data: { text: `note ${i} `.padEnd(200, 'x') } })
  }
}

export const suite = {
  name: 'multi-process',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-multi-'))
    try {
      const withPens = await startStore(dir)
      const withoutPens = await startStore(dir)
      // As before: no pen per write (the lock was held from open to close).
      const bare = withoutPens.persistence as { takePen?: unknown }
      bare.takePen = undefined
      const current = withPens.sessions.create('current', { meta: { cwd: '/bench' } })
      const old = withoutPens.sessions.create('old', { meta: { cwd: '/bench' } })
      await withPens.sessions.flush(current.id)
      await withoutPens.sessions.flush(old.id)
      const turnWith = await timeEach(RUNS * 4, () => turn(withPens, current))
      const turnWithout = await timeEach(RUNS * 4, () => turn(withoutPens, old))

      const path = join(dir, 'current.jsonl')
      const penAlone = await timeEach(RUNS * 4, () => withPens.sessions.takePen(current).release())
      const lstat = await timeEach(RUNS * 4, async () => lstatSync(path))

      // Catching up: another store appends 1,000 events; this one takes the pen and adopts them.
      const writer = await startStore(dir)
      const reader = await startStore(dir)
      const shared = writer.sessions.create('shared', { meta: { cwd: '/bench' } })
      await writer.sessions.flush(shared.id)
      const view = await reader.sessions.load('shared')
      const catchUp = await timeEach(
        RUNS,
        async () => {
          const pen = reader.sessions.takePen(view)
          if (pen.caughtUp.length !== TAIL) throw new Error(`caught up ${pen.caughtUp.length}`)
          await pen.release()
        },
        async () => {
          const pen = writer.sessions.takePen(shared)
          notes(shared, TAIL)
          await writer.sessions.flush(shared.id)
          await pen.release()
        },
      )
      const tail = writer.sessions.create('tail', { meta: { cwd: '/bench' } })
      notes(tail, TAIL)
      await writer.sessions.close(tail.id)
      const fresh = await startStore(dir)
      const freshLoad = await timeEach(
        RUNS,
        async () => {
          const loaded = await fresh.sessions.load('tail')
          if (loaded.lastSeq !== TAIL) throw new Error(`loaded ${loaded.lastSeq}`)
        },
        () => fresh.sessions.close('tail').catch(() => {}),
      )
      for (const store of [withPens, withoutPens, writer, reader, fresh]) await store.stop()
      return [
        {
          group: 'multi-process',
          name: 'turn of 6 events + flush, pen taken and let go (view current)',
          ours: turnWith * 1000,
          baselineName: 'same turn without pens (lock held from open to close)',
          baseline: turnWithout * 1000,
          unit: 'µs',
          better: 'lower',
          target: 1.2,
          note: 'the pen adds a lock file link/unlink and one lstat per turn',
        },
        {
          group: 'multi-process',
          name: 'takePen + release on a current view',
          ours: penAlone * 1000,
          baselineName: 'one lstat of the session file',
          baseline: lstat * 1000,
          unit: 'µs',
          better: 'lower',
          note: 'the version check itself is the lstat; the rest is the lock file',
        },
        {
          group: 'multi-process',
          name: `catch up on a ${TAIL}-event tail another process appended (takePen)`,
          ours: catchUp,
          baselineName: `fresh load of a ${TAIL}-event session`,
          baseline: freshLoad,
          unit: 'ms',
          better: 'lower',
          target: 1.0,
        },
      ]
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
