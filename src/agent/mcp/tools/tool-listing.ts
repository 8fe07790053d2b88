/** Most `tools/list` pages read from one server. */
export const MAX_TOOL_PAGES = 100
/** Most tools taken from one server (more than any model API accepts in one request). */
export const MAX_SERVER_TOOLS = 1000

export interface ToolListing {
  readonly tools: readonly unknown[]
  /** Why the listing stopped before the server's last page, when it did. */
  readonly cut?: string
}

/** Fetches one page: the page after `cursor` (the first page when undefined), within `timeoutMs`. */
export type PageFetcher = (
  cursor: string | undefined,
  timeoutMs: number,
) => Promise<{ readonly tools: readonly unknown[]; readonly nextCursor?: string | undefined }>

/**
 * A server's whole `tools/list`, following `nextCursor`, bounded: at most {@link MAX_TOOL_PAGES}
 * pages, {@link MAX_SERVER_TOOLS} tools and `budgetMs` for all pages together. Past a bound the
 * tools listed so far are kept and `cut` says which bound stopped the listing. The first page
 * failing (or timing out) rejects; a later one cuts the listing.
 */
export async function listAllTools(fetchPage: PageFetcher, budgetMs: number): Promise<ToolListing> {
  const deadline = Date.now() + budgetMs
  const tools: unknown[] = []
  let cursor: string | undefined
  for (let page = 1; ; page++) {
    const left = deadline - Date.now()
    if (page > 1 && left <= 0) return { tools, cut: `listing its tools took longer than ${budgetMs} ms` }
    let result: Awaited<ReturnType<PageFetcher>>
    try {
      result = await fetchPage(cursor, Math.max(left, 1))
    } catch (error) {
      if (page === 1) throw error
      return { tools, cut: `listing its tools failed on page ${page} (${(error as Error).message})` }
    }
    for (const tool of result.tools) {
      if (tools.length >= MAX_SERVER_TOOLS) {
        return { tools, cut: `it offers more than ${MAX_SERVER_TOOLS} tools` }
      }
      tools.push(tool)
    }
    cursor = result.nextCursor
    if (cursor === undefined) return { tools }
    if (page >= MAX_TOOL_PAGES) return { tools, cut: `its tool list has more than ${MAX_TOOL_PAGES} pages` }
  }
}
