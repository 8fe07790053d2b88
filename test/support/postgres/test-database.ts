import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import { type PostgresServer, startPostgresServer } from './server.js'

let server: Promise<PostgresServer> | undefined

/**
 * The run's one PostgreSQL server (see `global-setup.ts`): the first test process to ask starts it
 * (claiming `<run>/server` with an exclusive `mkdir`), the others wait for the `ready.json` (or
 * `failed.txt`) it writes, watching the run directory.
 */
export function sharedPostgres(): Promise<PostgresServer> {
  server ??= claimOrWait(inject('dshPostgresRunDir'))
  return server
}

async function claimOrWait(runDir: string): Promise<PostgresServer> {
  const ready = join(runDir, 'ready.json')
  const failed = join(runDir, 'failed.txt')
  let claimed = false
  try {
    mkdirSync(join(runDir, 'server'))
    claimed = true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  if (claimed) {
    try {
      const started = await startPostgresServer(join(runDir, 'server'))
      writeFileSync(`${ready}.tmp`, JSON.stringify(started))
      renameSync(`${ready}.tmp`, ready)
      return started
    } catch (error) {
      writeFileSync(failed, (error as Error).stack ?? String(error))
      throw error
    }
  }
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      if (existsSync(ready)) resolve(JSON.parse(readFileSync(ready, 'utf8')) as PostgresServer)
      else if (existsSync(failed))
        reject(new Error(`the PostgreSQL test server failed to start: ${readFileSync(failed, 'utf8')}`))
      else return false
      return true
    }
    const watcher = watch(runDir, () => {
      if (check()) watcher.close()
    })
    if (check()) watcher.close()
  })
}

/**
 * A fresh, empty database on the run's server, for one test file (or one test): its connection
 * string. Nothing is dropped: the server and its data go when the run ends.
 */
export async function freshDatabase(): Promise<string> {
  const { url } = await sharedPostgres()
  const name = `t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client(url)
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const at = new URL(url)
  at.pathname = `/${name}`
  return at.toString()
}

let fileDatabase: Promise<string> | undefined

/**
 * A fresh, empty schema in the calling test file's own database (made on first use): its
 * connection string, whose `search_path` is that schema, so every store started with it sees only
 * its own tables. Cheap enough for one per test or per property run.
 */
export async function freshSchema(): Promise<string> {
  fileDatabase ??= freshDatabase()
  const url = await fileDatabase
  const name = `s_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client(url)
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA ${name}`)
  } finally {
    await admin.end()
  }
  const at = new URL(url)
  at.searchParams.set('options', `-c search_path=${name}`)
  return at.toString()
}

/** Runs one statement on a connection of its own (a test's look at the database, or a fault it makes). */
export async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}
