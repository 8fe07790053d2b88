import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { PaginatedResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpToolInfo } from './mcp-tool.js'

/** One page of `tools/list`: the tools that can be offered, and those that cannot, with why. */
export interface ToolListPage {
  readonly tools: McpToolInfo[]
  /** `name: why` for each tool of the page left out. */
  readonly skipped: string[]
  readonly nextCursor?: string | undefined
}

/**
 * Asks for one page of `tools/list` and checks each tool on its own: the SDK's `listTools` rejects
 * the whole list when one tool is malformed (and compiles output schemas with a backtracking
 * regex engine), so one bad tool would reject the server. A tool that is not a valid MCP `Tool`,
 * or only runs as a task (`execution.taskSupport: "required"`, which dsh-acp does not do), is
 * left out and named. Output schemas are not checked: a result's structured content is only text
 * for the model.
 */
export async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ToolListPage> {
  const page = await client.request(
    { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
    PaginatedResultSchema,
    { timeout: timeoutMs, ...(signal && { signal }) },
  )
  const listed: unknown = (page as { tools?: unknown }).tools
  if (!Array.isArray(listed)) throw new Error('the tools/list answer has no tools array')
  const tools: McpToolInfo[] = []
  const skipped: string[] = []
  for (const [index, raw] of listed.entries()) {
    const name = nameOf(raw, index)
    const parsed = ToolSchema.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
      skipped.push(`${name}: it is not a valid MCP tool (${issue?.message ?? 'malformed'}${where})`)
    } else if (parsed.data.execution?.taskSupport === 'required') {
      skipped.push(`${name}: it only runs as an MCP task, which dsh-acp does not support`)
    } else {
      tools.push(parsed.data as McpToolInfo)
    }
  }
  return { tools, skipped, nextCursor: page.nextCursor }
}

function nameOf(raw: unknown, index: number): string {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined
  return typeof name === 'string' && name !== '' ? JSON.stringify(name).slice(0, 80) : `#${index + 1}`
}
