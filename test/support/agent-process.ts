import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Readable, Writable } from 'node:stream'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { PROJECT_DIR } from './project-dir.js'
import { LineSplitter, WireAudit } from './wire-audit.js'

export const CLI = resolve(import.meta.dirname, '../../dist/cli.cjs')

/**
 * What every spawned agent gets unless a test says otherwise: no user config directory (so the
 * machine's own `~/.config/dsh-acp/AGENTS.md` never reaches a test's system prompt) and one shell,
 * so what a session records of its environment is the same on every machine.
 */
export const HERMETIC_ENV: Readonly<Record<string, string>> = {
  XDG_CONFIG_HOME: '/nonexistent/dsh-acp-test-config',
  SHELL: '/bin/sh',
}

export interface AgentOptions {
  /** Store directory; default: a fresh temp dir (removed by `cleanup`). */
  readonly storeDir?: string
  /** The existing directory the test opens its sessions in (`cwd`); default {@link PROJECT_DIR}. */
  readonly cwd?: string
  readonly args?: readonly string[]
  /** Node arguments to run instead of the built server (e.g. `dsh-acp record` around it). */
  readonly command?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  /** Run the agent as this user (and group): a root test runner uses it to meet permissions. */
  readonly uid?: number
  /** Registers client-side handlers (permission, fs) before connecting. */
  readonly setupClient?: (app: acp.ClientApp) => void
}

/**
 * The built `dsh-acp` binary, spawned over real stdio and driven by the official ACP client.
 * Every line either side writes passes through `audit`, which validates the agent's output
 * against the official schema. `updates` collects every `session/update` params in order.
 */
export class AgentProcess {
  readonly audit = new WireAudit()
  readonly updates: acp.SessionNotification[] = []
  readonly child: ChildProcessWithoutNullStreams
  readonly connection: acp.ClientConnection
  readonly storeDir: string
  /** The directory the test opens its sessions in (see `AgentOptions.cwd`). */
  readonly cwd: string
  private stderrText = ''
  private readonly exited: Promise<number | null>
  private readonly stdoutSplitter: LineSplitter
  private readonly ownsStore: boolean

  constructor(options: AgentOptions = {}) {
    this.ownsStore = options.storeDir === undefined
    this.storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'dsh-acp-e2e-'))
    this.cwd = options.cwd ?? PROJECT_DIR
    const argv = options.command ?? [CLI, '--store', this.storeDir, ...(options.args ?? [])]
    this.child = spawn(process.execPath, [...argv], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...HERMETIC_ENV, ...options.env },
      ...(options.uid !== undefined && { uid: options.uid, gid: options.uid }),
    })
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)))
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8')
    })
    const fromAgent = new Readable({ read() {} })
    // The client's own request ids: an answer to anything else (a line written with `writeRaw`) is
    // for the test to read in `audit`, and is not passed to the client, which would not know it.
    const clientRequests = new Set<string>()
    this.stdoutSplitter = new LineSplitter((line) => {
      this.audit.record('out', line)
      if (!isAnswerToOther(line, clientRequests)) fromAgent.push(`${line}\n`)
    })
    this.child.stdout.on('data', (chunk: Buffer) => this.stdoutSplitter.push(chunk))
    this.child.stdout.on('end', () => fromAgent.push(null))
    const inSplitter = new LineSplitter((line) => {
      this.audit.record('in', line)
      const id = requestId(line)
      if (id !== undefined) clientRequests.add(id)
    })
    const toAgent = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        inSplitter.push(chunk)
        if (this.child.stdin.writable) this.child.stdin.write(chunk, done)
        else done()
      },
    })
    const app = acp.client({ name: 'dsh-acp-tests' })
    app.onNotification('session/update', ({ params }) => {
      this.updates.push(params)
    })
    options.setupClient?.(app)
    const stream = acp.ndJsonStream(
      Writable.toWeb(toAgent) as WritableStream<Uint8Array>,
      Readable.toWeb(fromAgent) as ReadableStream<Uint8Array>,
    )
    this.connection = app.connect(stream)
  }

  get agent(): acp.ClientContext {
    return this.connection.agent
  }

  get stderr(): string {
    return this.stderrText
  }

  /**
   * Writes raw bytes to the agent's stdin, bypassing the client (for malformed-input tests); the
   * agent's answers to them are in `audit` only.
   */
  writeRaw(text: string): void {
    this.audit.record('in', text.replace(/\n$/, ''))
    this.child.stdin.write(text)
  }

  /** `initialize` with the given client capabilities. */
  initialize(clientCapabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
    return this.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities })
  }

  /** Closes stdin (EOF) and waits for the agent to exit; resolves its exit code. */
  async stop(): Promise<number | null> {
    this.child.stdin.end()
    const code = await this.exited
    this.connection.close()
    return code
  }

  /** SIGKILLs the agent (a crash). */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL')
    await this.exited
    this.connection.close()
  }

  /** Lines the agent left without a newline at exit (must be none). */
  unterminatedOutput(): string {
    return this.stdoutSplitter.rest()
  }

  cleanup(): void {
    if (this.ownsStore) rmSync(this.storeDir, { recursive: true, force: true })
  }
}

/** The id (as JSON) of a JSON-RPC request line, else undefined. */
function requestId(line: string): string | undefined {
  const message = parsed(line)
  return typeof message?.method === 'string' && Object.hasOwn(message, 'id')
    ? JSON.stringify(message.id)
    : undefined
}

/** True for an agent line that answers no request of `clientRequests`: a response or a batch of them. */
function isAnswerToOther(line: string, clientRequests: ReadonlySet<string>): boolean {
  const message = parsed(line)
  if (Array.isArray(message)) return true
  if (message === undefined || typeof message.method === 'string' || !Object.hasOwn(message, 'id'))
    return false
  return !clientRequests.has(JSON.stringify(message.id))
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
