import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AnyMessage } from '@agentclientprotocol/sdk'
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client'
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { WebSocket } from 'ws'
import { CLI, HERMETIC_ENV } from './agent-process.js'
import { PROJECT_DIR } from './project-dir.js'

export type TransportKind = 'http' | 'ws'

/** `dsh-acp serve --listen 127.0.0.1:0` as a real process, its token in a file of its own. */
export class RemoteServer {
  readonly child: ChildProcessWithoutNullStreams
  readonly tokenFile: string
  private stderrText = ''
  private readonly exited: Promise<number | null>
  private readonly dir: string
  port = 0

  private constructor(args: readonly string[], env: Readonly<Record<string, string>>) {
    this.dir = mkdtempSync(join(tmpdir(), 'dsh-acp-remote-'))
    this.tokenFile = join(this.dir, 'token')
    this.child = spawn(
      process.execPath,
      [CLI, 'serve', '--listen', '127.0.0.1:0', '--token-file', this.tokenFile, ...args],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...HERMETIC_ENV, ...env } },
    )
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)))
    this.child.stdin.end()
  }

  /** Starts it; resolves once it says where it listens. */
  static async start(args: readonly string[] = ['--memory'], env: Record<string, string> = {}) {
    const server = new RemoteServer(args, env)
    server.port = await new Promise<number>((resolve, reject) => {
      server.child.stderr.on('data', (chunk: Buffer) => {
        server.stderrText += chunk.toString('utf8')
        const found = /serving ACP on http:\/\/127\.0\.0\.1:(\d+)\/acp/.exec(server.stderrText)
        if (found) resolve(Number(found[1]))
      })
      void server.exited.then((code) => reject(new Error(`serve exited with ${code}: ${server.stderrText}`)))
    })
    return server
  }

  get token(): string {
    return readFileSync(this.tokenFile, 'utf8').trim()
  }

  get stderr(): string {
    return this.stderrText
  }

  url(kind: TransportKind = 'http'): string {
    return `${kind}://127.0.0.1:${this.port}/acp`
  }

  /** The official client over the SDK's own HTTP or WebSocket transport. */
  client(
    kind: TransportKind,
    options: { setupClient?: (app: acp.ClientApp) => void; cwd?: string } = {},
  ): RemoteClient {
    return new RemoteClient(this.url(kind), kind, this.token, options.setupClient, options.cwd)
  }

  /** SIGTERM; resolves the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill(signal)
    const code = await this.exited
    rmSync(this.dir, { recursive: true, force: true })
    return code
  }
}

/** What a scenario drives: the stdio `AgentProcess` and `RemoteClient` both are one. */
export interface Driver {
  readonly agent: acp.ClientContext
  readonly updates: acp.SessionNotification[]
  readonly cwd: string
  initialize(clientCapabilities?: acp.ClientCapabilities): Promise<acp.InitializeResponse>
}

export class RemoteClient implements Driver {
  readonly updates: acp.SessionNotification[] = []
  /** The requests this client sent, as they went on the wire (id and method). */
  readonly requests: Array<{ readonly id: unknown; readonly method: string }> = []
  readonly connection: acp.ClientConnection
  private readonly sockets = new Set<WebSocket>()
  private readonly fetches = new Set<AbortController>()
  private networkDown = false
  constructor(
    url: string,
    kind: TransportKind,
    token: string,
    setupClient?: (app: acp.ClientApp) => void,
    readonly cwd: string = PROJECT_DIR,
  ) {
    const headers = { Authorization: `Bearer ${token}` }
    const sockets = this.sockets
    /** `ws`'s WebSocket, each one kept so that `drop` can kill it. */
    class KeptWebSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args)
        sockets.add(this)
      }
    }
    const transport =
      kind === 'ws'
        ? createWebSocketStream(url, { WebSocket: KeptWebSocket, headers })
        : createHttpStream(url, { headers, fetch: (input, init) => this.fetch(input, init) })
    const toAgent = transport.writable.getWriter()
    const stream = {
      readable: transport.readable,
      writable: new WritableStream<AnyMessage>({
        write: (message) => {
          if ('method' in message && 'id' in message)
            this.requests.push({ id: message.id, method: message.method })
          return toAgent.write(message)
        },
        close: () => toAgent.close(),
        abort: (reason) => toAgent.abort(reason),
      }),
    }
    const app = acp.client({ name: 'dsh-acp-tests' })
    app.onNotification('session/update', ({ params }) => {
      this.updates.push(params)
    })
    setupClient?.(app)
    this.connection = app.connect(stream)
  }

  get agent(): acp.ClientContext {
    return this.connection.agent
  }

  initialize(clientCapabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
    return this.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities })
  }

  close(): void {
    this.connection.close()
  }

  /**
   * The network goes away under the client: its sockets are killed (no close frame, no DELETE),
   * and every later request of its transport fails as a network error would.
   */
  drop(): void {
    this.networkDown = true
    for (const socket of this.sockets) socket.terminate()
    for (const controller of this.fetches) controller.abort()
  }

  private fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    if (this.networkDown) return Promise.reject(new TypeError('fetch failed: the network is down'))
    const controller = new AbortController()
    this.fetches.add(controller)
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal
    return fetch(input, { ...init, signal })
  }
}
