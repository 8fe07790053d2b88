import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { LineSplitter } from '../../jsonrpc/index.js'
import type { AgentExit } from '../agent-exit.js'
import type { AgentCommand } from '../record.js'

/** An agent the replay starts: the command, and optionally where and with what environment. */
export interface AgentLaunch extends AgentCommand {
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
}

/** One line the agent wrote: its text, or its bytes when they were not UTF-8. */
export interface AgentLine {
  readonly text: string
  readonly bytes?: Buffer
}

const STDERR_TAIL_BYTES = 16 * 1024

/**
 * An agent process under replay: lines it writes are reported through `onLine`, its stderr is
 * kept (the last 16 KiB) for the report. `stop()` always ends it: EOF on stdin, then SIGTERM, then
 * SIGKILL, each after `graceMs`.
 */
export class LiveAgent {
  private readonly child: ChildProcessWithoutNullStreams
  private stderrText = ''
  private exitInfo: AgentExit | undefined
  readonly exited: Promise<AgentExit>
  /** Rejects when the process cannot be started. */
  readonly started: Promise<void>

  constructor(launch: AgentLaunch, onLine: (line: AgentLine) => void) {
    this.child = spawn(launch.command, [...launch.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(launch.cwd !== undefined && { cwd: launch.cwd }),
      env: { ...process.env, ...launch.env },
    })
    this.started = new Promise((resolve, reject) => {
      this.child.once('spawn', () => resolve())
      this.child.once('error', (error) => reject(error))
    })
    this.started.catch(() => {})
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        this.exitInfo = { code, signal }
        resolve(this.exitInfo)
      })
      this.child.once('error', () => {
        this.exitInfo ??= { code: null, signal: null }
        resolve(this.exitInfo)
      })
    })
    const splitter = new LineSplitter(
      {
        line: (text, validUtf8, bytes) =>
          onLine(validUtf8 || !bytes ? { text } : { text, bytes: Buffer.from(bytes) }),
        overflow: () => {},
      },
      256 * 1024 * 1024,
    )
    this.child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk))
    this.child.stdout.on('end', () => splitter.end())
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)
    })
    this.child.stdin.on('error', () => {})
  }

  /** How it ended, once it has. */
  get exit(): AgentExit | undefined {
    return this.exitInfo
  }

  get stderr(): string {
    return this.stderrText
  }

  /** Writes one line (a `\n` is added). False when stdin is gone. */
  send(line: string | Buffer): boolean {
    if (!this.child.stdin.writable) return false
    this.child.stdin.write(line)
    this.child.stdin.write('\n')
    return true
  }

  /** Ends the agent: EOF, then SIGTERM, then SIGKILL, waiting `graceMs` after each. */
  async stop(graceMs: number): Promise<AgentExit> {
    if (this.exitInfo) return this.exitInfo
    this.child.stdin.end()
    for (const signal of [undefined, 'SIGTERM', 'SIGKILL'] as const) {
      if (signal !== undefined) this.child.kill(signal)
      const done = await Promise.race([this.exited, sleep(graceMs, undefined, { ref: false })])
      if (done) return done
    }
    return this.exited
  }
}
