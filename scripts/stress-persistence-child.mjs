// Crash-loop child: opens (or creates) one session in a store and appends context notes forever,
// some of them several memory pages long. After each flush resolves it reports, over IPC, every
// event that is now durable: { seq, length, hash }. The parent SIGKILLs it at a random moment.
// With a third argument `shared`, another writer appends to the same session at the same time:
// each batch is written with the pen held (taken again, after a moment, while the other has it).
import { createHash } from 'node:crypto'
import { Context } from 'cordis'
import { persistencePlugin } from '../dist/persistence/index.js'
import { routeLogsToStderr } from '../dist/process/logging.js'
import { sessionsPlugin } from '../dist/session/index.js'

const [dir, id, mode] = process.argv.slice(2)
routeLogsToStderr(2)
const ctx = new Context()
ctx.plugin(sessionsPlugin, { defaultCwd: '/crash' })
ctx.plugin(persistencePlugin, { dir })
await ctx.start()

let session
while (!session) {
  try {
    session = await ctx.sessions.load(id)
  } catch (error) {
    if (error?.code !== 'SESSION_NOT_FOUND') throw error
    try {
      session = ctx.sessions.create(id, { meta: { cwd: '/crash' } })
    } catch (created) {
      // The other writer is creating it (its lock) or created it: load it once it exists.
      const racing = created?.code === 'SESSION_ALREADY_EXISTS' || created?.code === 'SESSION_LOCKED'
      if (!racing || mode !== 'shared') throw created
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  }
}
await ctx.sessions.flush(id)
process.send({ type: 'ready', lastSeq: session.lastSeq })

const hash = (text) => createHash('sha1').update(text).digest('hex')
/** The pen, once the other writer let it go (it may have died holding it: then at once). */
async function pen() {
  for (;;) {
    try {
      return ctx.sessions.takePen(session)
    } catch (error) {
      if (error?.code !== 'SESSION_LOCKED') throw error
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3))
    }
  }
}

for (;;) {
  const held = mode === 'shared' ? await pen() : undefined
  const batch = []
  const count = 1 + Math.floor(Math.random() * 6)
  for (let i = 0; i < count; i++) {
    const large = Math.random() < 0.25
    const length = large ? 8192 + Math.floor(Math.random() * 40000) : 10 + Math.floor(Math.random() * 300)
    const text = `${session.lastSeq + 1}:`.padEnd(length, String.fromCharCode(97 + (session.lastSeq % 26)))
    const event = session.append({ type: 'context/note', data: { text } })
    batch.push({ seq: event.seq, length: text.length, hash: hash(text) })
  }
  await ctx.sessions.flush(id)
  await held?.release()
  process.send({ type: 'durable', events: batch })
}
