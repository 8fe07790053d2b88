import { Context } from 'cordis'
import { persistencePlugin } from '../persistence/index.js'
import { type SessionSummary, sessionsPlugin } from '../session/index.js'
import { renderLineage } from './lineage.js'

/** Reads every stored session's header (never whole logs) and prints the lineage forest. */
export async function printLineage(storeDir: string, print: (line: string) => void): Promise<void> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir: storeDir })
  await ctx.start()
  try {
    const all: SessionSummary[] = []
    let cursor: string | undefined
    do {
      const page = await ctx.sessions.list({ limit: 1000, ...(cursor !== undefined && { cursor }) })
      all.push(...page.sessions)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    print(`${all.length} session${all.length === 1 ? '' : 's'} in ${storeDir}`)
    for (const line of renderLineage(all)) print(line)
  } finally {
    await ctx.stop()
  }
}
