import { type ChildProcess, spawn } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** These waits never keep the process alive by themselves. */
const UNREF = { ref: false }

export interface GroupStdioOptions {
  readonly command: string
  readonly args: readonly string[]
  /** Added to the SDK's default inherited variables (HOME, PATH, ...). */
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  /** Called with the group's id once spawned, and again with `alive: false` once it is gone. */
  readonly onGroup?: (pgid: number, alive: boolean) => void
  /** The longest message line accepted; past it the server is stopped (the SDK's default when absent). */
  readonly maxBufferSize?: number
}

/** How long the server has after stdin is closed, and the group after SIGTERM. */
export const STOP_GRACE_MS = 2000
const POLL_MS = 25

/**
 * The MCP stdio transport (newline-delimited JSON-RPC over the child's stdin and stdout, as the
 * SDK's `StdioClientTransport`), with the server started in its own process group (`detached`), so
 * that ending it ends whatever it started too. Stopping: stdin closed; once the server has exited
 * or {@link STOP_GRACE_MS} passed, the whole group gets SIGTERM, and what is left after another
 * grace gets SIGKILL. stderr is discarded (it may echo the env's secrets).
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private child: ChildProcess | undefined
  private readonly buffer: ReadBuffer
  private exited: Promise<void> = Promise.resolve()
  private stopping: Promise<void> | undefined

  constructor(private readonly options: GroupStdioOptions) {
    this.buffer = new ReadBuffer(
      options.maxBufferSize !== undefined ? { maxBufferSize: options.maxBufferSize } : undefined,
    )
  }

  /** The server's pid, which is also its process group's id; undefined before start. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the MCP stdio transport was already started')
    const { command, args, env, cwd } = this.options
    const child = spawn(command, [...args], {
      cwd,
      env: { ...getDefaultEnvironment(), ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
      shell: false,
    })
    this.child = child
    // 'exit', not 'close': a child of the server may hold its stdout open after the server died.
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()))
    child.once('exit', () => void this.stop())
    child.once('close', () => {
      this.buffer.clear()
      this.onclose?.()
    })
    child.stdin?.on('error', (error) => this.onerror?.(error))
    child.stdout?.on('error', (error) => this.onerror?.(error))
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk))
    return new Promise((resolve, reject) => {
      child.once('error', (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.once('spawn', () => {
        if (child.pid !== undefined) this.options.onGroup?.(child.pid, true)
        resolve()
      })
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || stdin.destroyed || this.stopping) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Stops the server and its group (see the class); resolves once the group is gone. */
  close(): Promise<void> {
    return this.stop()
  }

  private stop(): Promise<void> {
    this.stopping ??= this.stopGroup()
    return this.stopping
  }

  private async stopGroup(): Promise<void> {
    const child = this.child
    const pgid = child?.pid
    if (!child || pgid === undefined) return
    try {
      child.stdin?.end()
    } catch {
      // already closed
    }
    await Promise.race([this.exited, delay(STOP_GRACE_MS, undefined, UNREF)])
    if (groupAlive(pgid)) {
      signalGroup(pgid, 'SIGTERM')
      await untilGone(pgid, STOP_GRACE_MS)
      signalGroup(pgid, 'SIGKILL')
      await untilGone(pgid, STOP_GRACE_MS)
    }
    this.options.onGroup?.(pgid, false)
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk)
    } catch (error) {
      this.onerror?.(error as Error)
      void this.stop()
      return
    }
    for (;;) {
      let message: JSONRPCMessage | null
      try {
        message = this.buffer.readMessage()
      } catch (error) {
        this.onerror?.(error as Error)
        continue
      }
      if (message === null) return
      this.onmessage?.(message)
    }
  }
}

/** Sends `signal` to every process of the group; quiet when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // the group is gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

async function untilGone(pgid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (groupAlive(pgid) && Date.now() < deadline) await delay(POLL_MS, undefined, UNREF)
}
