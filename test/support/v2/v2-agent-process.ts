import { spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable'
import { CLI, HERMETIC_ENV } from '../agent-process.js'
import { LineSplitter } from '../wire-audit.js'
import { V2WireAudit } from './v2-schema.js'

export interface V2AgentOptions {
  readonly args: readonly string[]
  /** Client-side handlers (permission, questions) registered before connecting. */
  readonly setupClient?: (app: v2.ClientApp) => void
  /** Added to the agent's environment (e.g. a `ConfigHome`'s HOME and XDG_CONFIG_HOME). */
  readonly env?: Readonly<Record<string, string>>
}

/**
 * The built `dsh-acp` over real stdio, driven by the SDK's own ACP v2 client
 * (`@agentclientprotocol/sdk/experimental/v2`) as an editor would; every line either side writes
 * goes through `audit`, which checks the agent's against the SDK's v2 schema.
 */
export class V2AgentProcess {
  readonly audit = new V2WireAudit()
  readonly connection: v2.ClientConnection
  private readonly child
  private readonly exited: Promise<number | null>
  private stderrText = ''

  constructor(options: V2AgentOptions) {
    this.child = spawn(process.execPath, [CLI, ...options.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...HERMETIC_ENV, ...options.env },
    })
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)))
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText += chunk.toString('utf8')
    })
    const fromAgent = new Readable({ read() {} })
    const out = new LineSplitter((line) => {
      this.audit.record('out', line)
      fromAgent.push(`${line}\n`)
    })
    this.child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    this.child.stdout.on('end', () => fromAgent.push(null))
    const inbound = new LineSplitter((line) => this.audit.record('in', line))
    const toAgent = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        inbound.push(chunk)
        if (this.child.stdin.writable) this.child.stdin.write(chunk, done)
        else done()
      },
    })
    const app = v2.client({ name: 'dsh-acp-v2-tests' })
    options.setupClient?.(app)
    this.connection = app.connect(
      v2.ndJsonStream(
        Writable.toWeb(toAgent) as WritableStream<Uint8Array>,
        Readable.toWeb(fromAgent) as ReadableStream<Uint8Array>,
      ),
    )
  }

  get agent(): v2.ClientContext {
    return this.connection.agent
  }

  get stderr(): string {
    return this.stderrText
  }

  initialize(capabilities: v2.ClientCapabilities = {}): Promise<v2.InitializeResponse> {
    return this.agent.request('initialize', {
      protocolVersion: 2,
      info: { name: 'dsh-acp-v2-tests', version: '1' },
      capabilities,
    })
  }

  /** Waits until an update the agent sent after the first `from` satisfies `found`. */
  async until(found: (update: Record<string, any>) => boolean, from = 0): Promise<Record<string, any>> {
    for (;;) {
      const hit = this.audit.updates().slice(from).find(found)
      if (hit) return hit
      await new Promise<void>((wake) => this.child.stdout.once('data', () => setImmediate(wake)))
    }
  }

  /** Closes stdin (EOF) and waits for the agent to exit; resolves its exit code. */
  async stop(): Promise<number | null> {
    this.child.stdin.end()
    const code = await this.exited
    this.connection.close()
    return code
  }
}
