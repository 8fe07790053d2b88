import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { type PostgresBinaries, postgresBinaries } from './binaries.js'

const run = promisify(execFile)

/**
 * The unprivileged account the test server runs as when the tests run as root (PostgreSQL refuses
 * to run as root). Created on first use (`useradd --system`, no home, no login shell).
 */
export const POSTGRES_TEST_USER = 'dsh-acp-pg'

/** A running test server: a superuser's connection string to its `postgres` database. */
export interface PostgresServer {
  readonly url: string
  readonly dataDir: string
}

interface Account {
  readonly uid: number
  readonly gid: number
}

async function idOf(user: string): Promise<Account | undefined> {
  try {
    const uid = Number((await run('id', ['-u', user])).stdout.trim())
    const gid = Number((await run('id', ['-g', user])).stdout.trim())
    return { uid, gid }
  } catch {
    return undefined
  }
}

/** Root's stand-in for the server: the test account, created when missing. Undefined when not root. */
async function serverAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const existing = await idOf(POSTGRES_TEST_USER)
  if (existing) return existing
  try {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      POSTGRES_TEST_USER,
    ])
  } catch (error) {
    // Another test run created it meanwhile (useradd exits 9), else a real failure.
    const made = await idOf(POSTGRES_TEST_USER)
    if (made) return made
    throw new Error(
      `cannot create the account ${POSTGRES_TEST_USER} the PostgreSQL test server runs as: ${(error as Error).message}`,
    )
  }
  const made = await idOf(POSTGRES_TEST_USER)
  if (!made) throw new Error(`useradd ${POSTGRES_TEST_USER} succeeded but the account is not found`)
  return made
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

/**
 * Initialises a cluster in `dir/data` and starts it on 127.0.0.1 (TCP only, no Unix socket) on a
 * free port, as {@link POSTGRES_TEST_USER} when running as root, with password authentication.
 * `fsync=off`: the tests prove what is committed before an answer, not that the test machine's
 * disk survives a power cut. Resolves once the server accepts connections (`pg_ctl -w`). The
 * server outlives the calling process: stop it with {@link stopPostgresServer}.
 */
export async function startPostgresServer(dir: string): Promise<PostgresServer> {
  const account = await serverAccount()
  const as = account ? { uid: account.uid, gid: account.gid } : {}
  const dataDir = join(dir, 'data')
  // The server's account must reach its data directory (0700, its own) through `dir`.
  chmodSync(dir, 0o711)
  const bins = await reachableBinaries(postgresBinaries(), as, dir)
  mkdirSync(dataDir, { mode: 0o700 })
  const password = randomBytes(12).toString('hex')
  const pwfile = join(dir, 'pwfile')
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
  if (account) {
    chownSync(dataDir, account.uid, account.gid)
    chownSync(pwfile, account.uid, account.gid)
  }
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' }
  await run(
    bins.initdb,
    [
      '--pgdata',
      dataDir,
      '--username',
      'postgres',
      '--pwfile',
      pwfile,
      '--auth',
      'scram-sha-256',
      '--encoding',
      'UTF8',
      '--no-sync',
    ],
    { ...as, env, cwd: dir },
  )
  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    const options = [
      `-p ${port}`,
      "-c listen_addresses='127.0.0.1'",
      "-c unix_socket_directories=''",
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ')
    try {
      await run(
        bins.pgCtl,
        ['start', '-w', '-t', '60', '-D', dataDir, '-l', join(dataDir, 'server.log'), '-o', options],
        {
          ...as,
          env,
          cwd: dir,
        },
      )
      return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, dataDir }
    } catch (error) {
      // Most likely the port was taken between the probe and the bind: another port.
      lastError = error
    }
  }
  throw new Error(`the PostgreSQL test server did not start: ${(lastError as Error).message}`)
}

/** Stops a server {@link startPostgresServer} started (`pg_ctl stop -m immediate`: nothing to keep). */
export async function stopPostgresServer(dataDir: string): Promise<void> {
  // The copy startPostgresServer made when the installed binaries were out of the account's reach.
  const copied = join(dirname(dataDir), 'native', 'bin', 'pg_ctl')
  const pgCtl = existsSync(copied) ? copied : postgresBinaries().pgCtl
  const account = await serverAccount()
  await run(pgCtl, ['stop', '-w', '-m', 'immediate', '-D', dataDir], {
    ...(account ? { uid: account.uid, gid: account.gid } : {}),
    cwd: '/',
  })
}

/**
 * The binaries as the server's account can run them: where they are installed, unless that
 * account cannot reach them there (a checkout under a 0700 home, as root's often is); then a copy
 * of the package's `native` tree (about 60 MB) in `dir`.
 */
async function reachableBinaries(
  bins: PostgresBinaries,
  as: { uid?: number; gid?: number },
  dir: string,
): Promise<PostgresBinaries> {
  if (as.uid === undefined) return bins
  try {
    await run(bins.initdb, ['--version'], { ...as, cwd: '/' })
    return bins
  } catch {
    const native = dirname(dirname(bins.initdb))
    const copy = join(dir, 'native')
    cpSync(native, copy, { recursive: true, verbatimSymlinks: true })
    const bin = join(copy, 'bin')
    return { initdb: join(bin, 'initdb'), pgCtl: join(bin, 'pg_ctl'), postgres: join(bin, 'postgres') }
  }
}
