// Crash loop for the JSONL backend: a child appends and reports what is durable; we SIGKILL it at a
// random moment, then load the session and check that every reported event is there, intact.
// `node scripts/stress-persistence.mjs [rounds] [writers]` (npm run stress); needs `npm run build`
// first. With 2 writers, two children append to the one session at once, taking turns with the pen,
// each killed at its own random moment (while it holds the pen, often): the other takes over.
import { fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { persistencePlugin } from '../dist/persistence/index.js'
import { sessionsPlugin } from '../dist/session/index.js'

const here = dirname(fileURLToPath(import.meta.url))
const CHILD = join(here, 'stress-persistence-child.mjs')

/** One child life: resolves the events it reported durable. */
function runChild(dir, id, maxLifeMs, shared) {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [dir, id, ...(shared ? ['shared'] : [])], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    const durable = []
    let stderr = ''
    let ready = false
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('message', (message) => {
      if (message.type === 'ready') {
        ready = true
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * maxLifeMs))
      } else if (message.type === 'durable') durable.push(...message.events)
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (!ready || signal !== 'SIGKILL') {
        reject(new Error(`child exited before the kill (code ${code}, signal ${signal}): ${stderr}`))
      } else resolve({ durable })
    })
  })
}

/** Loads the session in a fresh context and checks every durable event; returns its length. */
async function verify(dir, id, durable) {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir })
  await ctx.start()
  try {
    const session = await ctx.sessions.load(id)
    // Every lock a killed writer left is stale: the pen is free at once.
    await ctx.sessions.takePen(session).release()
    for (const expected of durable) {
      const event = session.at(expected.seq)
      const text = event?.data?.text
      if (typeof text !== 'string' || text.length !== expected.length) {
        throw new Error(
          `event ${expected.seq} was reported durable but is ${event ? 'different' : 'missing'}`,
        )
      }
      if (createHash('sha1').update(text).digest('hex') !== expected.hash) {
        throw new Error(`event ${expected.seq} was reported durable but its text differs`)
      }
    }
    return session.lastSeq
  } finally {
    await ctx.sessions.closeAll()
    await ctx.get('persistence').idle()
    await ctx.stop()
  }
}

/**
 * Runs `rounds` child lives on one session in a fresh temp store. Resolves totals; rejects on the
 * first lost or altered durable event.
 */
export async function runCrashLoop({ rounds, writers = 1, maxLifeMs = 150, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-crash-'))
  const id = 'crash_loop'
  const durable = new Map()
  let tornTails = 0
  let lastSeq = 0
  try {
    for (let round = 1; round <= rounds; round++) {
      const lives = await Promise.all(
        Array.from({ length: writers }, () => runChild(dir, id, maxLifeMs, writers > 1)),
      )
      const life = { durable: lives.flatMap((l) => l.durable) }
      for (const event of life.durable) {
        const known = durable.get(event.seq)
        if (known && known.hash !== event.hash)
          throw new Error(`two writers were told seq ${event.seq} is theirs`)
        durable.set(event.seq, event)
      }
      const bytes = readFileSync(join(dir, `${id}.jsonl`))
      if (bytes[bytes.length - 1] !== 0x0a) tornTails++
      lastSeq = await verify(dir, id, durable.values())
      const each = lives.map((l) => l.durable.length).join(' + ')
      log(`round ${round}: ${each} events acknowledged, log at seq ${lastSeq}`)
    }
    return { rounds, durable: durable.size, lastSeq, tornTails }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 200)
  const writers = Number(process.argv[3] ?? 1)
  const result = await runCrashLoop({ rounds, writers, log: (line) => console.error(line) })
  console.log(
    `crash loop: ${result.rounds} rounds, ${result.durable} durable events all present, log at seq ${result.lastSeq}, ${result.tornTails} torn tails repaired${writers > 1 ? `, ${writers} writers` : ''}`,
  )
}
