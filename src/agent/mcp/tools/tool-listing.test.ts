import { describe, expect, it } from 'vitest'
import { listAllTools, MAX_SERVER_TOOLS, MAX_TOOL_PAGES, type PageFetcher } from './tool-listing.js'

const tool = (n: number) => ({ name: `t${n}` })

/** A server with `pages` pages of `perPage` tools; each page answers after `ms`. */
function pagesOf(pages: number, perPage: number, ms = 0): PageFetcher & { asked: number } {
  const fetcher = async (cursor: string | undefined) => {
    fetcher.asked++
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms))
    const page = Number(cursor ?? '0')
    const tools = Array.from({ length: perPage }, (_, i) => tool(page * perPage + i))
    return page + 1 < pages ? { tools, nextCursor: String(page + 1) } : { tools }
  }
  fetcher.asked = 0
  return fetcher
}

describe('listAllTools', () => {
  it('follows nextCursor to the last page', async () => {
    const listing = await listAllTools(pagesOf(3, 2), 10_000)
    expect(listing).toEqual({ tools: [0, 1, 2, 3, 4, 5].map(tool) })
  })

  it(`stops after ${MAX_TOOL_PAGES} pages, keeping them`, async () => {
    const fetcher = pagesOf(Number.POSITIVE_INFINITY, 1)
    const listing = await listAllTools(fetcher, 60_000)
    expect(fetcher.asked).toBe(MAX_TOOL_PAGES)
    expect(listing.tools).toHaveLength(MAX_TOOL_PAGES)
    expect(listing.cut).toBe(`its tool list has more than ${MAX_TOOL_PAGES} pages`)
  })

  it(`keeps at most ${MAX_SERVER_TOOLS} tools`, async () => {
    const listing = await listAllTools(pagesOf(3, MAX_SERVER_TOOLS / 2 + 1), 60_000)
    expect(listing.tools).toHaveLength(MAX_SERVER_TOOLS)
    expect(listing.cut).toBe(`it offers more than ${MAX_SERVER_TOOLS} tools`)
  })

  it('stops when the pages together took longer than the budget, keeping what was listed', async () => {
    const fetcher = pagesOf(50, 1, 5)
    const listing = await listAllTools(fetcher, 1)
    expect(fetcher.asked).toBe(1)
    expect(listing).toEqual({ tools: [tool(0)], cut: 'listing its tools took longer than 1 ms' })
  })

  it('rejects when the first page fails; a later failure cuts the listing', async () => {
    const failing = (from: number): PageFetcher => {
      const pages = pagesOf(10, 1)
      return async (cursor, ms) => {
        if (Number(cursor ?? '0') >= from) throw new Error('boom')
        return pages(cursor, ms)
      }
    }
    await expect(listAllTools(failing(0), 1000)).rejects.toThrow('boom')
    expect(await listAllTools(failing(2), 1000)).toEqual({
      tools: [tool(0), tool(1)],
      cut: 'listing its tools failed on page 3 (boom)',
    })
  })
})
