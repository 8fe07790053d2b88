import { setTimeout as delay } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { errorMessage } from '../../lib/error-message.js'
import { packageVersion } from '../../lib/package-version.js'
import type { ToolRegistry } from '../tools/registry.js'
import { createSchemaCompiler } from '../tools/schema-compiler.js'
import {
  AskingCalls,
  answerAsks,
  type ElicitationModes,
  mcpClientCapabilities,
  type ServerSampling,
} from './asks/mcp-asks.js'
import { GroupStdioTransport, STOP_GRACE_MS } from './group-stdio-transport.js'
import { cappedFetch, MCP_MESSAGE_LIMIT } from './mcp-limits.js'
import { answerRoots, replacedDirectories } from './mcp-roots.js'
import { type McpServerConfig, namespacedToolName, redact, secretsOf } from './server-config.js'
import { type McpToolInfo, mcpTool } from './tools/mcp-tool.js'
import { listToolsPage } from './tools/mcp-tool-list.js'
import { outputValidator } from './tools/output-validator.js'
import { listAllTools } from './tools/tool-listing.js'

/** These waits never keep the process alive by themselves. */
const UNREF = { ref: false }

export interface McpConnectOptions {
  readonly sessionId: string
  /** The session's cwd: where a stdio server runs. */
  readonly cwd: string
  /** The session's directories (cwd, then additional ones) as they are now: the server's roots. Absent: cwd. */
  readonly directories?: () => readonly string[]
  readonly registry: ToolRegistry
  /** Limit (ms) for connecting, for listing tools (all pages together) and for each tool call. */
  readonly timeoutMs: number
  /** The server's place in the session's `mcpServers`: the model sees its tools in that order. */
  readonly rank: number
  /** Called once when the server goes away by itself (after its tools were withdrawn). */
  readonly onLost: (reason: string) => void
  /** Called with each spawned stdio server's process group, and with `alive: false` once it is gone. */
  readonly trackGroup?: (pgid: number, alive: boolean) => void
  /** Aborts the opening: the server is stopped and `open` rejects. */
  readonly signal?: AbortSignal
  /** The modes the session's client shows questions in: the server may ask in those. Absent: none. */
  readonly elicitation?: ElicitationModes
  /** Answers the server's sampling requests, within its bounds. Absent: sampling is not advertised. */
  readonly sampling?: ServerSampling
  /** Called once when the server asked for roots that leave out directories of its own args. */
  readonly onRootsReplaced?: (directories: readonly string[]) => void
}

/** The MCP SDK client for one server. Its capabilities are declared here (mcp-asks.ts). */
function createClient(config: McpServerConfig, options: McpConnectOptions): Client {
  const capabilities = mcpClientCapabilities(options.elicitation, config.roots !== false)
  const { sampling: _sampling, ...withoutSampling } = capabilities
  return new Client(
    { name: 'dsh-acp', version: packageVersion() },
    {
      capabilities: options.sampling ? capabilities : withoutSampling,
      jsonSchemaValidator: outputValidator(),
    },
  )
}

/**
 * One live MCP server of one session: connected with the official SDK client over stdio (the
 * server spawned with the given command, args and env, in the session's cwd, in its own process
 * group, stderr discarded since it may echo secrets) or streamable HTTP (with the given headers;
 * closing terminates the HTTP session with a DELETE). Its tools are in the registry, scoped to the
 * session, until the connection closes or is lost. Error texts never carry the config's secrets.
 */
export class McpConnection {
  private closing = false
  private opened = false
  private stopped: Promise<void> | undefined
  private readonly unregister: (() => void)[] = []
  /** The registered names of the server's tools. */
  readonly tools: string[] = []
  /** Tools the registry refused (bad schema, name taken), with why. */
  readonly skipped: string[] = []
  /** Why the tool list was cut short (a limit of tool-listing.ts), when it was. */
  listingCut: string | undefined
  /** The server's tool calls in flight: whom its questions and sampling requests concern. */
  private readonly calls = new AskingCalls()

  private constructor(
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly options: McpConnectOptions,
  ) {}

  /** Connects and registers the server's tools; rejects (with a secret-free reason) when it cannot. */
  static async open(config: McpServerConfig, options: McpConnectOptions): Promise<McpConnection> {
    const transport = createTransport(config, options)
    const client = createClient(config, options)
    if (config.roots !== false) {
      const directories = options.directories ?? (() => [options.cwd])
      answerRoots(client, directories, replacedDirectories(config, options.cwd, options.onRootsReplaced))
    }
    const connection = new McpConnection(config, client, transport, options)
    answerAsks(client, {
      server: config.name,
      calls: connection.calls,
      modes: options.elicitation,
      sampling: options.sampling,
    })
    client.onclose = () => connection.lost('the connection closed')
    const onAbort = () => void connection.shutdown()
    options.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      options.signal?.throwIfAborted()
      await client.connect(transport, {
        timeout: options.timeoutMs,
        ...(options.signal && { signal: options.signal }),
      })
      await connection.registerTools()
      options.signal?.throwIfAborted()
    } catch (error) {
      connection.closing = true
      connection.withdraw()
      await connection.shutdown()
      throw new Error(redact(errorMessage(error), config))
    } finally {
      options.signal?.removeEventListener('abort', onAbort)
    }
    connection.opened = true
    return connection
  }

  get name(): string {
    return this.config.name
  }

  /** Withdraws the tools and stops the server (see {@link shutdown}). */
  async close(): Promise<void> {
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

  /**
   * Ends the server's side: an HTTP session is terminated (DELETE, given {@link STOP_GRACE_MS}); a
   * stdio server and its process group are stopped (group-stdio-transport.ts). Once only.
   */
  private shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      if (this.transport instanceof StreamableHTTPClientTransport) {
        const http = this.transport
        await Promise.race([http.terminateSession().catch(() => {}), delay(STOP_GRACE_MS, undefined, UNREF)])
      }
      try {
        await this.client.close()
      } catch {
        // already closed
      }
      await this.transport.close().catch(() => {})
    })()
    return this.stopped
  }

  private async registerTools(): Promise<void> {
    const signal = this.options.signal
    const listing = await listAllTools(async (cursor, timeout) => {
      const page = await listToolsPage(this.client, cursor, timeout, signal)
      this.skipped.push(...page.skipped)
      return page
    }, this.options.timeoutMs)
    this.listingCut = listing.cut
    // The connection's own compiler: what it compiled goes with the connection.
    const compiler = createSchemaCompiler()
    for (const info of listing.tools as McpToolInfo[]) {
      signal?.throwIfAborted()
      const registeredName = namespacedToolName(this.config.name, info.name)
      const tool = mcpTool(info, {
        server: this.config.name,
        registeredName,
        client: this.client,
        timeoutMs: this.options.timeoutMs,
        secrets: secretsOf(this.config),
        calls: this.calls,
      })
      try {
        const remove = await this.options.registry.registerForSession(tool, this.options.sessionId, {
          rank: this.options.rank,
          compiler,
        })
        if (this.closing) remove()
        else this.unregister.push(remove)
        this.tools.push(registeredName)
      } catch (error) {
        this.skipped.push(`${JSON.stringify(info.name)}: ${errorMessage(error)}`)
      }
    }
  }
}

function createTransport(config: McpServerConfig, options: McpConnectOptions): Transport {
  if (config.transport === 'stdio') {
    return new GroupStdioTransport({
      command: config.command,
      args: config.args,
      env: Object.fromEntries(config.env.map((pair) => [pair.name, pair.value])),
      cwd: options.cwd,
      maxBufferSize: MCP_MESSAGE_LIMIT,
      ...(options.trackGroup && { onGroup: options.trackGroup }),
    })
  }
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: Object.fromEntries(config.headers.map((pair) => [pair.name, pair.value])) },
    fetch: cappedFetch(),
  })
}
