import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ToolRegistry } from '../tools/registry.js'
import { createSchemaCompiler } from '../tools/schema-compiler.js'
import { errorMessage } from '../turn/model-step.js'
import { cappedFetch, MCP_MESSAGE_LIMIT } from './mcp-limits.js'
import { answerRoots, MCP_CLIENT_CAPABILITIES } from './mcp-roots.js'
import { type McpToolInfo, mcpTool } from './mcp-tool.js'
import { listToolsPage } from './mcp-tool-list.js'
import { type McpServerConfig, namespacedToolName, redact, secretsOf } from './server-config.js'

export interface McpConnectOptions {
  readonly sessionId: string
  /** The session's cwd: where a stdio server runs. */
  readonly cwd: string
  /** The session's directories (cwd, then additional ones) as they are now: the server's roots. Absent: cwd. */
  readonly directories?: () => readonly string[]
  readonly registry: ToolRegistry
  /** Limit (ms) for connecting, listing tools and each tool call. */
  readonly timeoutMs: number
  /** Called once when the server goes away by itself (after its tools were withdrawn). */
  readonly onLost: (reason: string) => void
  /** Called with each spawned stdio server's pid, and with undefined when it is gone. */
  readonly trackPid?: (pid: number, alive: boolean) => void
}

/** Client info sent in MCP `initialize`. */
const CLIENT_INFO = { name: 'dsh-acp', version: '0.2.0' }

/**
 * One live MCP server of one session: connected with the official SDK client over stdio (the
 * server spawned with the given command, args and env, in the session's cwd, stderr discarded since
 * it may echo secrets) or streamable HTTP (with the given headers). Its tools are in the registry,
 * scoped to the session, until the connection closes or is lost. Error texts never carry the
 * config's secrets.
 */
export class McpConnection {
  private closing = false
  private opened = false
  private readonly unregister: (() => void)[] = []
  /** The registered names of the server's tools. */
  readonly tools: string[] = []
  /** Tools the registry refused (bad schema, name taken), with why. */
  readonly skipped: string[] = []

  private constructor(
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly options: McpConnectOptions,
  ) {}

  /** Connects and registers the server's tools; rejects (with a secret-free reason) when it cannot. */
  static async open(config: McpServerConfig, options: McpConnectOptions): Promise<McpConnection> {
    const transport = createTransport(config, options.cwd)
    const client = new Client(CLIENT_INFO, { capabilities: MCP_CLIENT_CAPABILITIES })
    answerRoots(client, options.directories ?? (() => [options.cwd]))
    const connection = new McpConnection(config, client, transport, options)
    client.onclose = () => connection.lost('the connection closed')
    try {
      await client.connect(transport, { timeout: options.timeoutMs })
      connection.watchPid()
      await connection.registerTools()
    } catch (error) {
      connection.closing = true
      await connection.shutdown()
      throw new Error(redact(errorMessage(error), config))
    }
    connection.opened = true
    return connection
  }

  get name(): string {
    return this.config.name
  }

  /** Withdraws the tools and stops the server (a stdio child: stdin closed, then SIGTERM, SIGKILL). */
  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    this.withdraw()
    await this.shutdown()
  }

  private lost(reason: string): void {
    if (this.closing || !this.opened) return
    this.closing = true
    this.withdraw()
    void this.shutdown()
    this.options.onLost(reason)
  }

  private withdraw(): void {
    for (const remove of this.unregister.splice(0)) remove()
  }

  private async shutdown(): Promise<void> {
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null
    try {
      await this.client.close()
    } catch {
      // already closed
    }
    if (pid !== null && pid !== undefined) this.options.trackPid?.(pid, false)
  }

  private watchPid(): void {
    if (!(this.transport instanceof StdioClientTransport)) return
    const pid = this.transport.pid
    if (pid !== null && pid !== undefined) this.options.trackPid?.(pid, true)
  }

  private async registerTools(): Promise<void> {
    const infos: McpToolInfo[] = []
    let cursor: string | undefined
    do {
      const page = await listToolsPage(this.client, cursor, this.options.timeoutMs)
      infos.push(...page.tools)
      this.skipped.push(...page.skipped)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    // The connection's own compiler: what it compiled goes with the connection.
    const compiler = createSchemaCompiler()
    for (const info of infos) {
      const registeredName = namespacedToolName(this.config.name, info.name)
      const tool = mcpTool(info, {
        server: this.config.name,
        registeredName,
        client: this.client,
        timeoutMs: this.options.timeoutMs,
        secrets: secretsOf(this.config),
      })
      try {
        this.unregister.push(
          await this.options.registry.registerForSession(tool, this.options.sessionId, compiler),
        )
        this.tools.push(registeredName)
      } catch (error) {
        this.skipped.push(`${JSON.stringify(info.name)}: ${errorMessage(error)}`)
      }
    }
  }
}

function createTransport(config: McpServerConfig, cwd: string): Transport {
  if (config.transport === 'stdio') {
    return new StdioClientTransport({
      command: config.command,
      args: [...config.args],
      env: Object.fromEntries(config.env.map((pair) => [pair.name, pair.value])),
      cwd,
      stderr: 'ignore',
      maxBufferSize: MCP_MESSAGE_LIMIT,
    })
  }
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: Object.fromEntries(config.headers.map((pair) => [pair.name, pair.value])) },
    fetch: cappedFetch(),
  })
}
