import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { JsonValue } from '../../session/index.js'
import type { Tool } from '../tools/tool.js'
import type { ToolResult } from '../types.js'

/** What `tools/list` says about one tool. */
export interface McpToolInfo {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: { readonly [key: string]: unknown }
  readonly annotations?:
    | { readonly title?: string | undefined; readonly readOnlyHint?: boolean | undefined }
    | undefined
}

export interface McpToolOptions {
  readonly server: string
  readonly registeredName: string
  readonly client: Client
  /** Per-call timeout (ms). */
  readonly timeoutMs: number
}

/**
 * A registry entry for one MCP tool: its JSON Schema as the server declared it, a title naming the
 * server, `effect: read` only when the server marks it read-only (`readOnlyHint`), else `execute`
 * (so the policy asks). `run` sends `tools/call` with the turn's signal (a cancel sends MCP's
 * `notifications/cancelled`) and the timeout; the text parts of the answer are what the model reads.
 */
export function mcpTool(info: McpToolInfo, options: McpToolOptions): Tool {
  const readOnly = info.annotations?.readOnlyHint === true
  const label = info.title ?? info.annotations?.title ?? info.name
  return {
    spec: {
      name: options.registeredName,
      description: `${info.description ?? label} (MCP server ${options.server})`,
      inputSchema: info.inputSchema as JsonValue,
    },
    kind: readOnly ? 'read' : 'other',
    effect: readOnly ? 'read' : 'execute',
    title: () => `${options.server}: ${label}`,
    async run(input, context) {
      const result = await options.client.callTool(
        { name: info.name, arguments: input as { [key: string]: unknown } },
        undefined,
        { signal: context.signal, timeout: options.timeoutMs },
      )
      return toolResultOf(result as { content?: unknown; isError?: unknown; structuredContent?: unknown })
    },
  }
}

/** An MCP `CallToolResult` as a tool result: text parts joined; other parts named. */
export function toolResultOf(result: {
  content?: unknown
  isError?: unknown
  structuredContent?: unknown
}): ToolResult {
  const parts = Array.isArray(result.content)
    ? (result.content as { type?: string; [key: string]: unknown }[])
    : []
  const texts = parts.map((part) => {
    if (part.type === 'text' && typeof part.text === 'string') return part.text
    if (part.type === 'image' || part.type === 'audio') return `[${part.type} ${String(part.mimeType ?? '')}]`
    if (part.type === 'resource_link') return `[resource ${String(part.uri ?? '')}]`
    if (part.type === 'resource') {
      const resource = part.resource as { uri?: string; text?: string } | undefined
      return resource?.text ?? `[resource ${resource?.uri ?? ''}]`
    }
    return `[${String(part.type)}]`
  })
  let output = texts.join('\n')
  if (output === '' && result.structuredContent !== undefined)
    output = JSON.stringify(result.structuredContent)
  return result.isError === true ? { output, isError: true } : { output }
}
