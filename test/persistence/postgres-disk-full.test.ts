import { execFileSync } from 'node:child_process'
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresPersistencePlugin } from '../../src/persistence/postgres/index.js'
import { SessionErrorCode } from '../../src/session/errors.js'
import type { SessionEvent } from '../../src/session/log/events.js'
import { type BackendHost, startHost } from '../support/backends.js'
import { POSTGRES_TEST_USER } from '../support/postgres/server.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'
import { appendTurn } from '../support/session-store.js'

// Disk full on the database's side: the events table moved to a tablespace on a 1 MiB tmpfs. A
// turn that fills it fails clearly (SQLSTATE 53100), loses nothing acknowledged, and once there is
// room again (the tmpfs grown) the session, loaded again, takes writes. Mounting a tmpfs needs
// root (the test server then runs as its own account); otherwise there is no disk to fill.

const wire = (events: readonly SessionEvent[]) => events.map((e) => JSON.stringify(e))
const asRoot = process.getuid?.() === 0

function mountTiny(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0711', 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe.runIf(asRoot)('PostgreSQL: the database’s disk full', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-pg-full-'))
  let mounted = false
  let host: BackendHost | undefined
  beforeAll(async () => {
    await sharedPostgres()
    mounted = mountTiny(dir)
  }, 120_000)
  afterAll(async () => {
    await host?.stop().catch(() => {})
    if (mounted) execFileSync('umount', ['-l', dir])
    rmSync(dir, { recursive: true, force: true })
  })

  it('a turn that fills it fails clearly, keeps what was acknowledged, and writes again once there is room', async (t) => {
    if (!mounted) t.skip('this machine does not let root mount a tmpfs')
    const url = await freshSchema()
    host = await startHost((ctx) => ctx.plugin(postgresPersistencePlugin, { url, poolSize: 4 }))
    const space = join(dir, 'space')
    mkdirSync(space)
    const account = execFileSync('id', ['-u', POSTGRES_TEST_USER]).toString().trim()
    chownSync(space, Number(account), Number(execFileSync('id', ['-g', POSTGRES_TEST_USER]).toString()))
    const admin = new pg.Client(url)
    await admin.connect()
    const name = `tiny_${Date.now()}`
    try {
      await admin.query(`CREATE TABLESPACE ${name} LOCATION '${space}'`)
      await admin.query(`ALTER TABLE dsh_events SET TABLESPACE ${name}`)
      const made = await host.sessions.createDurable()
      appendTurn(made, 'acknowledged')
      await host.sessions.flush(made.id)
      let acknowledged = wire(made.events())
      // Turns of incompressible text until the disk is full.
      let failure: unknown
      for (let i = 0; i < 200 && failure === undefined; i++) {
        appendTurn(made, randomText(64 * 1024))
        failure = await host.sessions.flush(made.id).then(
          () => {
            acknowledged = wire(made.events())
            return undefined
          },
          (error: unknown) => error,
        )
      }
      expect(failure).toMatchObject({
        code: SessionErrorCode.PERSISTENCE_FAILED,
        data: { sqlState: '53100' },
      })
      expect((failure as Error).message).toMatch(/No space left on device/)
      // Room again: the session, loaded again, holds exactly what was acknowledged and takes writes.
      execFileSync('mount', ['-o', 'remount,size=64m', dir])
      expect(host.sessions.letGoIfChanged(made.id)).toBe(true)
      const again = await host.sessions.open(made.id)
      expect(wire(again.events())).toEqual(acknowledged)
      appendTurn(again, 'after the disk was grown')
      await host.sessions.flush(again.id)
    } finally {
      await host.stop().catch(() => {})
      host = undefined
      await admin.query('DROP TABLE IF EXISTS dsh_events CASCADE').catch(() => {})
      await admin.query(`DROP TABLESPACE IF EXISTS ${name}`).catch(() => {})
      await admin.end()
    }
  })
})

function randomText(length: number): string {
  let text = ''
  while (text.length < length) text += Math.random().toString(36).slice(2)
  return text.slice(0, length)
}
