// One measurement in a fresh process, so peak RSS belongs to it alone:
// `node --expose-gc load-memory-child.js <ours|parse> <storeDir> <id>` prints JSON
// `{ peakMB, afterMB }`: the process's peak RSS while loading, and its RSS after the session was
// closed and garbage collected (ours) or the values dropped (parse).
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Context } from 'cordis'
import { persistencePlugin } from '../src/persistence/index.js'
import { routeLogsToStderr } from '../src/process/logging.js'
import { sessionsPlugin } from '../src/session/index.js'

const [mode, dir, id] = process.argv.slice(2) as [string, string, string]
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const mb = (bytes: number) => Math.round(bytes / 1e6)

async function ours(): Promise<void> {
  routeLogsToStderr(1)
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir })
  await ctx.start()
  await ctx.sessions.load(id)
  await ctx.sessions.close(id)
  await ctx.persistence?.idle()
}

async function parse(): Promise<void> {
  let kept: unknown[] = []
  const lines = createInterface({
    input: createReadStream(join(dir, `${id}.jsonl`)),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  for await (const line of lines) kept.push(JSON.parse(line))
  if (kept.length === 0) throw new Error('empty')
  kept = []
}

await (mode === 'ours' ? ours() : parse())
for (let i = 0; i < 3; i++) {
  gc()
  await new Promise((resolve) => setTimeout(resolve, 50))
}
const peakMB = mb(process.resourceUsage().maxRSS * 1024)
console.log(JSON.stringify({ peakMB, afterMB: mb(process.memoryUsage().rss) }))
process.exit(0)
