import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendTurn, startStore, tempDir } from '../support/session-store.js'

// Issue 34 item 2: no request waits without bound on another process. Taking the pen is one
// synchronous step: it is taken, or refused busy (SESSION_LOCKED) at once; a holder that is gone
// is stale and taken over at once. A holder killed while its parent has not reaped it yet (a
// zombie: an editor busy elsewhere) answers `kill(pid, 0)` but writes nothing any more; on 0.3 its
// lock was taken for a live writer's, and every request on the session was refused until then.

const HOLDER = join(import.meta.dirname, 'fixtures', 'hold-session.mjs')

let store: ReturnType<typeof tempDir>
const cleanups: Array<() => void> = []
beforeEach(() => {
  store = tempDir()
})
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
  store.cleanup()
})

function lockPid(id: string): number | undefined {
  const path = join(store.dir, `${id}.lock`)
  return existsSync(path) ? Number(readFileSync(path, 'utf8').trim().split(' ')[0]) : undefined
}

function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return undefined
  }
}

/**
 * Starts a holder of `id`'s pen, mid-turn, whose parent never reaps it (a shell that became
 * `sleep`); resolves once it holds the pen.
 */
function unreapedHolder(id: string): Promise<void> {
  const shell = spawn(
    'sh',
    ['-c', `"${process.execPath}" "${HOLDER}" "${store.dir}" "${id}" turn & exec sleep 600`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  cleanups.push(() => shell.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    shell.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('holding')) resolve()
    })
    shell.once('exit', (code) => reject(new Error(`holder's shell exited with ${code}`)))
  })
}

/** Resolves once `pid` is a zombie, checking at each turn of the event loop. */
async function zombie(pid: number): Promise<void> {
  while (stateOf(pid) !== 'Z') await new Promise((resolve) => setImmediate(resolve))
}

describe('a pen whose holder died', () => {
  it.runIf(existsSync('/proc/self/stat'))(
    'is taken over at once when the holder was killed and not reaped yet (a zombie)',
    async () => {
      expect(existsSync('dist/persistence/index.js'), 'run `npm run build` first').toBe(true)
      const s = await startStore(store.dir)
      appendTurn(s.sessions.create('held', { meta: { cwd: '/z' } }), 'one')
      await s.sessions.close('held')
      await s.persistence.idle()
      await unreapedHolder('held')
      const holder = lockPid('held') as number
      expect(holder).toBeGreaterThan(0)
      process.kill(holder, 'SIGKILL')
      await zombie(holder)

      const loaded = await s.sessions.load('held')
      const pen = s.sessions.takePen(loaded)
      expect(lockPid('held')).toBe(process.pid)
      // The turn the dead holder left open is ended, and the session goes on.
      expect(loaded.events().some((e) => e.type === 'turn/end' && e.data.reason === 'interrupted')).toBe(true)
      appendTurn(loaded, 'two')
      await pen.release()
      expect(lockPid('held')).toBeUndefined()
      await s.stop()
    },
  )
})
