import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { JsonValue } from '../../../session/index.js'
import type { Tool } from '../../tools/tool.js'
import type { AskingCalls } from '../asks/mcp-asks.js'
import { redactor } from '../server-config.js'
import { type McpCallResult, toolResultOf } from './mcp-content.js'
import { ProgressRelay } from './mcp-progress.js'

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
  /** Per-call timeout (ms); each progress notification starts it again. */
  readonly timeoutMs: number
  /** The server's secret values (env values, header values): hidden in what its tools answer. */
  readonly secrets?: readonly string[]
  /** The connection's calls in flight: a call is one while it runs, so the server's requests name it. */
  readonly calls?: AskingCalls
}

/**
 * A registry entry for one MCP tool: its JSON Schema as the server declared it, a title naming the
 * server, `effect: read` only when the server marks it read-only (`readOnlyHint`), else `execute`
 * (so the policy asks). `run` sends `tools/call` with the turn's signal (a cancel sends MCP's
 * `notifications/cancelled`) and the timeout, shows the server's progress notifications as
 * `in_progress` updates of the call (throttled), and answers with {@link toolResultOf}.
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
      const secrets = options.secrets ?? []
      const done = options.calls?.track({
        sessionId: context.sessionId,
        callId: context.callId,
        turn: context.turn,
        tool: options.registeredName,
        title: `${options.server}: ${label}`,
        kind: readOnly ? 'read' : 'other',
        input,
        client: context.client,
        signal: context.signal,
      })
      const relay = new ProgressRelay(
        (text) => context.progress([{ type: 'content', content: { type: 'text', text } }]),
        redactor(secrets),
      )
      try {
        const result = await options.client.callTool(
          { name: info.name, arguments: input as { [key: string]: unknown } },
          undefined,
          {
            signal: context.signal,
            timeout: options.timeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: relay.onprogress,
          },
        )
        const answer: McpCallResult & { readonly toolResult?: unknown } = result
        // A server on the 2024-10-07 protocol answers `{toolResult}`, read as structured content.
        return toolResultOf(
          answer.content === undefined && answer.toolResult !== undefined
            ? { structuredContent: answer.toolResult }
            : answer,
          { secrets },
        )
      } finally {
        done?.()
        relay.stop()
      }
    },
  }
}
