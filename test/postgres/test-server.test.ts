import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { freshDatabase } from '../support/postgres/test-database.js'

describe('the PostgreSQL test server', () => {
  it('is a real server on loopback, one per run, with a fresh database per call', async () => {
    const a = await freshDatabase()
    const b = await freshDatabase()
    expect(new URL(a).hostname).toBe('127.0.0.1')
    expect(new URL(a).port).toBe(new URL(b).port)
    expect(new URL(a).pathname).not.toBe(new URL(b).pathname)
    const client = new pg.Client(a)
    await client.connect()
    try {
      const { rows } = await client.query<{ db: string; superuser: string }>(
        "select current_database() as db, current_setting('is_superuser') as superuser",
      )
      expect(`/${rows[0]?.db}`).toBe(new URL(a).pathname)
      await client.query('create table t (x int)')
      await client.query('insert into t values (1)')
      expect((await client.query('select count(*)::int as n from t')).rows[0].n).toBe(1)
    } finally {
      await client.end()
    }
  })
})
