// Crash loop for rewind: a child appends, reports what is durable and rewinds at random
// boundaries (stress-rewind-child.mjs); we SIGKILL it at a random moment, then check: the session
// loads and holds the log as it was before the rewind in flight or as it is after it (nothing
// else); every branch a finished rewind reported loads and holds the whole log it replaced, then
// `session/archived`; a branch of the rewind in flight is absent or whole; a rewound session has
// its branch. `node scripts/stress-rewind.mjs [rounds]`; needs `npm run build` first.
import { fork } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { persistencePlugin } from '../dist/persistence/index.js'
import { sessionsPlugin } from '../dist/session/index.js'

const here = dirname(fileURLToPath(import.meta.url))
const CHILD = join(here, 'stress-rewind-child.mjs')
const hash = (text) => createHash('sha1').update(text).digest('hex')
/** A log entry standing for the marker a rewind writes after the events it kept. */
const MARKER = 'rewind:marker'
/** The log a rewind to `boundary` leaves: the kept events, then its marker. */
const rewoundLog = (log, boundary) => [...log.slice(0, boundary), MARKER]

/** One child life; `model` (seq → hash of the log as last known) is updated from its reports. */
function runChild(dir, id, life, maxLifeMs, model) {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [dir, id, String(life)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
    let stderr = ''
    let ready = false
    let pending
    const branches = []
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('message', (message) => {
      if (message.type === 'ready') {
        ready = true
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * maxLifeMs))
      } else if (message.type === 'durable') {
        for (const event of message.events) model[event.seq - 1] = event.hash
      } else if (message.type === 'rewinding') {
        model.length = message.length
        pending = { ...message, before: model.slice() }
      } else if (message.type === 'rewound') {
        branches.push({ branchId: pending.branchId, log: pending.before })
        model.length = message.boundary
        model.push(MARKER)
        pending = undefined
      }
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (!ready || signal !== 'SIGKILL')
        reject(new Error(`child exited before the kill (code ${code}, signal ${signal}): ${stderr}`))
      else resolve({ pending, branches })
    })
  })
}

/**
 * Whether `session` holds the events of `log`, by hash. An entry with no hash is an event the child
 * appended and made durable but whose report a SIGKILL cut off before it reached us (the IPC
 * message is sent after the flush): it must be there, whatever it says.
 */
function holds(session, log) {
  for (let i = 0; i < log.length; i++) {
    if (log[i] === MARKER) {
      if (session.at(i + 1)?.type !== MARKER) return false
      continue
    }
    const text = session.at(i + 1)?.data?.text
    if (typeof text !== 'string') return false
    if (log[i] !== undefined && hash(text) !== log[i]) return false
  }
  return true
}

async function withStore(dir, body) {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir })
  await ctx.start()
  try {
    return await body(ctx.sessions)
  } finally {
    await ctx.sessions.closeAll()
    await ctx.get('persistence').idle()
    await ctx.stop()
  }
}

async function checkBranch(sessions, branchId, log, parent) {
  const branch = await sessions.load(branchId)
  const last = branch.at(branch.lastSeq)
  if (branch.lastSeq !== log.length + 1 || !holds(branch, log) || last?.type !== 'session/archived') {
    throw new Error(
      `branch ${branchId} does not hold the ${log.length} events it replaced, then session/archived`,
    )
  }
  if (branch.header.parentSession !== parent) throw new Error(`branch ${branchId} does not name ${parent}`)
  await sessions.close(branchId)
}

export async function runRewindCrashLoop({ rounds, maxLifeMs = 200, log = () => {} }) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-rewind-crash-'))
  const id = 'rewind_loop'
  const model = []
  const finished = []
  let inFlight = 0
  let rewinds = 0
  try {
    for (let life = 1; life <= rounds; life++) {
      const { pending, branches } = await runChild(dir, id, life, maxLifeMs, model)
      finished.push(...branches)
      rewinds += branches.length
      await withStore(dir, async (sessions) => {
        const session = await sessions.load(id)
        if (pending) {
          inFlight++
          const old = session.lastSeq === pending.length && holds(session, pending.before)
          const rewound =
            session.lastSeq === pending.boundary + 1 &&
            holds(session, rewoundLog(pending.before, pending.boundary))
          if (!old && !rewound)
            throw new Error(`life ${life}: the session is neither the log before the rewind nor after it`)
          const branchThere = existsSync(join(dir, `${pending.branchId}.jsonl`))
          if (rewound && !old && !branchThere)
            throw new Error(`life ${life}: rewound, but its branch is missing`)
          if (branchThere) {
            await sessions.close(id)
            await checkBranch(sessions, pending.branchId, pending.before, id)
            await sessions.load(id)
          }
          model.length = 0
          model.push(...(old ? pending.before : rewoundLog(pending.before, pending.boundary)))
        } else if (!holds(session, model)) {
          throw new Error(`life ${life}: an event reported durable is missing or different`)
        }
        await sessions.close(id)
        for (const branch of branches) await checkBranch(sessions, branch.branchId, branch.log, id)
      })
      log(
        `life ${life}: ${branches.length} rewinds done${pending ? ', one in flight' : ''}, log at seq ${model.length}`,
      )
    }
    return { rounds, rewinds, inFlight, branches: finished.length }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 100)
  const result = await runRewindCrashLoop({ rounds, log: (line) => console.error(line) })
  console.log(
    `rewind crash loop: ${result.rounds} rounds, ${result.rewinds} rewinds checked, ${result.inFlight} killed in flight`,
  )
}
