import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { routeLogsToStderr } from '../src/process/logging.js'
import type { AnyEventInput, Session, SessionStore } from '../src/session/index.js'
import { type BenchRow, collectGarbage, median } from './harness.js'
import { startStore } from './persistence-store.js'
import {
  cloneSession,
  copyInto,
  manySessions,
  type PgHost,
  startBenchServer,
  startPgHost,
  writeNotesSession,
} from './postgres-setup.js'

const TURNS = 40
const RUNS = 5
const ANSWER = 'x'.repeat(1000)

function turnEvents(turn: number): AnyEventInput[] {
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'user/message', data: { turn, content: [{ type: 'text', text: `question ${turn}` }] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'assistant/message', data: { turn, step: 1, content: ANSWER } },
    { type: 'step/end', data: { turn, step: 1 } },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ]
}

/** One turn as the agent writes it: the pen, six events, their flush (durable), the pen let go. */
async function storeTurn(sessions: SessionStore, session: Session): Promise<number> {
  const start = performance.now()
  const pen = sessions.takePen(session)
  for (const input of turnEvents(session.lastTurn + 1)) session.append(input)
  await sessions.flush(session.id)
  await pen.release()
  return performance.now() - start
}

/** The same six rows by hand: one transaction of one multi-row INSERT. */
async function rawTurn(client: pg.Client, turn: number): Promise<number> {
  const lines = turnEvents(turn).map((e, i) =>
    JSON.stringify({ seq: turn * 6 + i, type: e.type, time: new Date().toISOString(), data: e.data }),
  )
  const start = performance.now()
  await client.query('BEGIN')
  await client.query(
    'INSERT INTO raw_events (session_id, seq, body) SELECT $1, s, b::json FROM unnest($2::int[], $3::text[]) AS t(s, b)',
    ['raw', lines.map((_, i) => turn * 6 + i), lines],
  )
  await client.query('COMMIT')
  return performance.now() - start
}

async function appendRows(pgHost: PgHost, url: string, dir: string): Promise<BenchRow[]> {
  const jsonl = await startStore(join(dir, 'append-jsonl'))
  const client = new pg.Client(url)
  await client.connect()
  await client.query(
    'CREATE TABLE raw_events (session_id text, seq integer, body json, PRIMARY KEY (session_id, seq))',
  )
  const onPg = await pgHost.sessions.createDurable()
  const onFiles = await jsonl.sessions.createDurable()
  const times = { pg: [] as number[], raw: [] as number[], jsonl: [] as number[] }
  for (let turn = 1; turn <= TURNS; turn++) {
    times.pg.push(await storeTurn(pgHost.sessions, onPg))
    times.raw.push(await rawTurn(client, turn))
    times.jsonl.push(await storeTurn(jsonl.sessions, onFiles))
  }
  await client.end()
  await jsonl.stop()
  const ours = median(times.pg.slice(2))
  const row = {
    group: 'postgres',
    name: 'append a turn (6 events, ~1.3 KB), durable',
    ours,
    unit: 'ms',
  } as const
  const note = `medians of ${TURNS - 2} turns interleaved; the server runs fsync and synchronous_commit on`
  return [
    {
      ...row,
      baselineName: 'raw INSERT of the rows + COMMIT',
      baseline: median(times.raw.slice(2)),
      better: 'lower',
      note,
    },
    {
      ...row,
      baselineName: 'JSONL store turn (fdatasync)',
      baseline: median(times.jsonl.slice(2)),
      better: 'lower',
      note,
    },
  ]
}

/** Median ms of `fn` over RUNS runs after one warm-up, a GC before each. */
async function timed(fn: (run: number) => Promise<unknown>, before?: (run: number) => Promise<unknown>) {
  const times: number[] = []
  for (let run = 0; run <= RUNS; run++) {
    await before?.(run)
    collectGarbage()
    const start = performance.now()
    await fn(run)
    if (run > 0) times.push(performance.now() - start)
  }
  return median(times)
}

async function loadRows(pgHost: PgHost, url: string, filesDir: string): Promise<BenchRow[]> {
  const jsonl = await startStore(filesDir)
  const load = (sessions: SessionStore) => async () => {
    await sessions.load('n50')
    await sessions.close('n50')
  }
  const ours = await timed(load(pgHost.sessions))
  const files = await timed(load(jsonl.sessions))
  await jsonl.stop()
  const client = new pg.Client(url)
  await client.connect()
  const raw = await timed(() =>
    client.query("SELECT body::text FROM dsh_events WHERE session_id = 'n50' ORDER BY seq"),
  )
  await client.end()
  const row = {
    group: 'postgres',
    name: 'load of a 50 MB session (session/load, every event checked)',
    ours,
    unit: 'ms',
    better: 'lower',
  } as const
  return [
    { ...row, baselineName: 'JSONL store load of the same session', baseline: files },
    { ...row, baselineName: 'raw SELECT of its rows (text)', baseline: raw, note: `medians of ${RUNS} runs` },
  ]
}

async function forkRows(pgHost: PgHost, filesDir: string): Promise<BenchRow[]> {
  const forkOf = async (sessions: SessionStore, id: string) => {
    const session = await sessions.load(id)
    const ms = await timed(async () => {
      const child = await sessions.forkDurable(session, session.lastSeq)
      await sessions.close(child.id)
    })
    await sessions.close(id)
    return ms
  }
  const at5 = await forkOf(pgHost.sessions, 'n5')
  const at50 = await forkOf(pgHost.sessions, 'n50')
  const jsonl = await startStore(filesDir)
  const files50 = await forkOf(jsonl.sessions, 'n50')
  await jsonl.stop()
  const row = {
    group: 'postgres',
    name: 'fork of a loaded 50 MB session at its end (durable)',
    ours: at50,
    unit: 'ms',
    better: 'lower',
  } as const
  return [
    {
      ...row,
      baselineName: 'the same fork of a 5 MB session',
      baseline: at5,
      target: 1.5,
      note: 'the database part is O(1) (the child references the parent rows); the child Session built in memory walks the inherited events',
    },
    { ...row, baselineName: 'JSONL fork of the 50 MB session (prefix copied)', baseline: files50 },
  ]
}

async function rewindRows(pgHost: PgHost, url: string): Promise<BenchRow[]> {
  const rewindOf = async (from: string) => {
    let session: Session | undefined
    return timed(
      async (run) => {
        if (session)
          await pgHost.sessions.rewind(session, Math.floor(session.lastSeq / 2), {
            branchId: `b_${from}_${run}`,
          })
      },
      async (run) => {
        await cloneSession(url, from, `r_${from}_${run}`)
        session = await pgHost.sessions.load(`r_${from}_${run}`)
      },
    )
  }
  const at5 = await rewindOf('n5')
  const at50 = await rewindOf('n50')
  return [
    {
      group: 'postgres',
      name: 'rewind of a loaded 50 MB session to half (durable)',
      ours: at50,
      baselineName: 'the same rewind of a 5 MB session',
      baseline: at5,
      unit: 'ms',
      better: 'lower',
      target: 1.5,
      note: 'O(1) in the database: the branch takes over the rows by metadata (their stream), none is written again; the rest is loading the kept prefix into the new live session',
    },
  ]
}

async function listRows(pgHost: PgHost, url: string): Promise<BenchRow[]> {
  await manySessions(url, 100_000)
  const first = await timed(() => pgHost.sessions.list({ limit: 50 }))
  const deep = await timed(async () => {
    let cursor: string | undefined
    for (let page = 0; page < 20; page++)
      cursor = (await pgHost.sessions.list({ limit: 50, ...(cursor && { cursor }) })).nextCursor
  })
  const client = new pg.Client(url)
  await client.connect()
  const raw = await timed(() =>
    client.query(
      'SELECT id, header::text, cwd, updated_at, title, archived, cost::text FROM dsh_sessions ORDER BY updated_at DESC, id DESC LIMIT 51',
    ),
  )
  await client.end()
  const row = {
    group: 'postgres',
    unit: 'ms',
    better: 'lower',
    baselineName: 'raw indexed SELECT of one page',
    baseline: raw,
  } as const
  return [
    { ...row, name: 'session/list of 100,000 sessions: first page of 50', ours: first },
    { ...row, name: 'session/list of 100,000 sessions: each of 20 pages by cursor', ours: deep / 20 },
  ]
}

export const suite = {
  name: 'postgres',
  async run(): Promise<BenchRow[]> {
    routeLogsToStderr(1)
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-pg-'))
    // As root, the server runs as its own account, which must reach its directory through this one.
    chmodSync(dir, 0o711)
    const server = await startBenchServer(dir)
    let host: PgHost | undefined
    try {
      const filesDir = join(dir, 'files')
      writeNotesSession(filesDir, 'n5', 5)
      writeNotesSession(filesDir, 'n50', 50)
      await copyInto(filesDir, server.url)
      host = await startPgHost(server.url)
      const rows = [...(await appendRows(host, server.url, dir))]
      rows.push(...(await loadRows(host, server.url, filesDir)))
      rows.push(...(await forkRows(host, filesDir)))
      rows.push(...(await rewindRows(host, server.url)))
      // The rewound sessions stay live; a live session's summary is computed at each list.
      await host.sessions.closeAll()
      rows.push(...(await listRows(host, server.url)))
      return rows
    } finally {
      await host?.stop().catch(() => {})
      await server.stop().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  },
}
