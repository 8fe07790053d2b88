import { randomUUID } from 'node:crypto'
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

export interface TestHttpMcp {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string
  /** Authorization headers seen, one per HTTP request. */
  readonly authorizations: (string | undefined)[]
  /** Tool calls received, by tool name. */
  readonly calls: string[]
  /** MCP sessions opened (initialized), by id. */
  readonly sessions: string[]
  /** MCP sessions the client terminated (HTTP DELETE), by id. */
  readonly terminated: string[]
  close(): Promise<void>
}

/**
 * A streamable-HTTP MCP server for the tests on 127.0.0.1 (official SDK server, one session per
 * client; it counts the sessions opened and terminated). Requests without `Authorization: Bearer
 * <token>` get 401. Tools: `add {a, b}` and
 * `hang {}` (never answers until the client cancels).
 */
export async function startHttpMcp(token: string): Promise<TestHttpMcp> {
  const authorizations: (string | undefined)[] = []
  const calls: string[] = []
  const sessions: string[] = []
  const terminated: string[] = []
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    authorizations.push(req.headers.authorization)
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end('unauthorized')
      return
    }
    const sessionId = req.headers['mcp-session-id']
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined
    if (!transport) {
      const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.push(id)
          transports.set(id, fresh)
        },
        onsessionclosed: (id) => {
          terminated.push(id)
          transports.delete(id)
        },
      })
      transport = fresh
      await mcpServer(calls).connect(fresh)
    }
    await transport.handleRequest(req, res)
  }
  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    calls,
    sessions,
    terminated,
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}

function mcpServer(calls: string[]): Server {
  const server = new Server({ name: 'test-http', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
      { name: 'hang', description: 'Never answers', inputSchema: { type: 'object' } },
    ],
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    calls.push(request.params.name)
    const input = (request.params.arguments ?? {}) as { a?: number; b?: number }
    if (request.params.name === 'add') {
      return { content: [{ type: 'text', text: String((input.a ?? 0) + (input.b ?? 0)) }] }
    }
    return new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => {
        calls.push('hang:cancelled')
        resolve({ content: [{ type: 'text', text: 'cancelled' }], isError: true })
      })
    })
  })
  return server
}
