// Rewind crash-loop child: opens (or creates) one session and, forever, appends a few context
// notes, flushes, reports them durable over IPC ({ seq, hash }), then rewinds the session to a
// random boundary, reporting before ('rewinding' { boundary, length, branchId }) and after
// ('rewound'). The parent SIGKILLs it at a random moment (see stress-rewind.mjs).
import { createHash } from 'node:crypto'
import { Context } from 'cordis'
import { persistencePlugin } from '../dist/persistence/index.js'
import { routeLogsToStderr } from '../dist/process/logging.js'
import { sessionsPlugin } from '../dist/session/index.js'

const [dir, id, life] = process.argv.slice(2)
routeLogsToStderr(2)
const ctx = new Context()
ctx.plugin(sessionsPlugin, { defaultCwd: '/crash' })
ctx.plugin(persistencePlugin, { dir })
await ctx.start()

let session
try {
  session = await ctx.sessions.load(id)
} catch (error) {
  if (error?.code !== 'SESSION_NOT_FOUND') throw error
  session = ctx.sessions.create(id, { meta: { cwd: '/crash' } })
}
await ctx.sessions.flush(id)
process.send({ type: 'ready', lastSeq: session.lastSeq })

const hash = (text) => createHash('sha1').update(text).digest('hex')
for (let round = 0; ; round++) {
  const batch = []
  const count = 1 + Math.floor(Math.random() * 8)
  for (let i = 0; i < count; i++) {
    const length =
      Math.random() < 0.2 ? 8192 + Math.floor(Math.random() * 30000) : 10 + Math.floor(Math.random() * 300)
    const text = `${session.lastSeq + 1}:`.padEnd(length, String.fromCharCode(97 + (session.lastSeq % 26)))
    const event = session.append({ type: 'context/note', data: { text } })
    batch.push({ seq: event.seq, hash: hash(text) })
  }
  await ctx.sessions.flush(id)
  process.send({ type: 'durable', events: batch })
  const boundary = Math.floor(Math.random() * (session.lastSeq + 1))
  const branchId = `branch_${life}_${round}`
  process.send({ type: 'rewinding', boundary, length: session.lastSeq, branchId })
  session = (await ctx.sessions.rewind(session, boundary, { branchId })).session
  process.send({ type: 'rewound', boundary, branchId })
}
