import { Context } from 'cordis'
import { isPostgresUrl, plugPersistence } from '../persistence/index.js'
import { type SessionSummary, sessionsPlugin } from '../session/index.js'
import { renderLineage } from './lineage.js'

/** Reads every stored session's header (never whole logs) and prints the lineage forest. */
export async function printLineage(storeDir: string, print: (line: string) => void): Promise<void> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin)
  const store = await plugPersistence(ctx, storeDir)
  await ctx.start()
  try {
    await store.ready()
    const all: SessionSummary[] = []
    let cursor: string | undefined
    do {
      const page = await ctx.sessions.list({ limit: 1000, ...(cursor !== undefined && { cursor }) })
      all.push(...page.sessions)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    print(
      `${all.length} session${all.length === 1 ? '' : 's'} in ${isPostgresUrl(storeDir) ? withoutPassword(storeDir) : storeDir}`,
    )
    for (const line of renderLineage(all)) print(line)
  } finally {
    await ctx.stop()
  }
}

/** A connection string as it may be printed: its password, if any, masked. */
function withoutPassword(url: string): string {
  try {
    const at = new URL(url)
    if (at.password !== '') at.password = '***'
    return at.toString()
  } catch {
    return 'the PostgreSQL database'
  }
}
