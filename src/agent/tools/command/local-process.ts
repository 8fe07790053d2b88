import { AbortedError } from '../../../lib/abort.js'

export interface LocalRun {
  readonly output: string
  /** Output beyond the limit was dropped (the first part is kept). */
  readonly truncated: boolean
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
}

export interface LocalRunOptions {
  readonly cwd: string
  readonly timeoutMs: number
  /** Most bytes of stdout and stderr (together, interleaved) kept. */
  readonly outputLimit: number
  readonly signal: AbortSignal
  /** The command's whole environment: nothing of this process's is inherited beyond it. */
  readonly env: Readonly<Record<string, string>>
  /**
   * The command is bubblewrap writing its `--info-fd 3` JSON (`child-pid`: the sandbox's PID 1):
   * ending the run SIGKILLs that process, which ends every process of the sandbox's PID namespace
   * (a `setsid` daemon too). Until bubblewrap has said it, the kill waits (it has not started the
   * command yet); the group still gets SIGKILL after the grace period.
   */
  readonly sandboxInfoFd?: true
  /** Arguments given to the command on fd 4, NUL-terminated each, then closed (bubblewrap's `--args 4`). */
  readonly argsFd4?: readonly string[]
  /** Hears each piece of output kept (stdout and stderr, as they come). */
  readonly onOutput?: (piece: Buffer) => void
  /** Grace between SIGTERM and SIGKILL. Default 2 s. */
  readonly killGraceMs?: number
}

/**
 * Runs `command args` as a child process in its own process group, with stdin closed. It resolves
 * when the process has exited and its output is closed. On timeout or when `signal` aborts, the
 * whole group gets SIGTERM and, after a grace period, SIGKILL (a sandbox: its PID 1 gets SIGKILL at
 * once, see `sandboxInfoFd`); an abort rejects with an AbortError once the group is gone. Unconfined,
 * a process that left the group (`setsid`) escapes; in a sandbox nothing outlives the call.
 */
export async function runLocalCommand(
  command: string,
  args: readonly string[],
  options: LocalRunOptions,
): Promise<LocalRun> {
  options.signal.throwIfAborted()
  // Loaded by the first command run: a server that runs none starts without it.
  const { spawn } = await import('node:child_process')
  options.signal.throwIfAborted()
  return new Promise<LocalRun>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: [
        'ignore',
        'pipe',
        'pipe',
        options.sandboxInfoFd ? 'pipe' : 'ignore',
        options.argsFd4 ? 'pipe' : 'ignore',
      ],
      detached: true,
    })
    if (options.argsFd4) writeArgs(child.stdio[4], options.argsFd4)
    const sandbox = options.sandboxInfoFd ? sandboxInit(child.stdio[3]) : undefined
    // Bubblewrap exits only after the sandbox's PID 1: its pid may then belong to someone else.
    child.once('exit', () => sandbox?.forget())
    const chunks: Buffer[] = []
    let kept = 0
    let truncated = false
    let timedOut = false
    let aborted = false
    const collect = (chunk: Buffer) => {
      if (kept >= options.outputLimit) {
        truncated = true
        return
      }
      const piece = chunk.subarray(0, options.outputLimit - kept)
      if (piece.length < chunk.length) truncated = true
      chunks.push(piece)
      kept += piece.length
      options.onOutput?.(piece)
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    let killTimer: NodeJS.Timeout | undefined
    const killGroup = () => {
      if (sandbox) sandbox.kill()
      else signalGroup(child.pid, 'SIGTERM')
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 2000)
      killTimer.unref()
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, options.timeoutMs)
    const onAbort = () => {
      aborted = true
      killGroup()
    }
    options.signal.addEventListener('abort', onAbort, { once: true })
    child.on('error', (error) => {
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      reject(error)
    })
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer)
      if (killTimer) clearTimeout(killTimer)
      signalGroup(child.pid, 'SIGKILL')
      options.signal.removeEventListener('abort', onAbort)
      if (aborted) {
        reject(new AbortedError('the command was cancelled'))
        return
      }
      resolve({ output: Buffer.concat(chunks).toString('utf8'), truncated, exitCode, signal, timedOut })
    })
  })
}

/**
 * The sandbox's PID 1, from bubblewrap's info JSON on `stream`; `kill` SIGKILLs it now or as soon
 * as it is known; `forget` once bubblewrap has exited (the pid is free for reuse then).
 */
function sandboxInit(stream: unknown): { kill(): void; forget(): void } {
  let text = ''
  let pid: number | undefined
  let wanted = false
  let gone = false
  const killNow = () => {
    if (pid === undefined) return
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  if (isReadable(stream)) {
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      if (gone || pid !== undefined || text.length > 65_536) return
      text += chunk
      try {
        const value = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid']
        if (typeof value === 'number' && Number.isSafeInteger(value) && value > 1) pid = value
      } catch {
        return // not whole yet
      }
      if (wanted) killNow()
    })
    stream.on('error', () => {})
  }
  return {
    kill() {
      wanted = true
      killNow()
    },
    forget() {
      gone = true
      pid = undefined
    },
  }
}

/** Writes `args` NUL-terminated to `stream` and ends it; a child that died first just misses them. */
function writeArgs(stream: unknown, args: readonly string[]): void {
  if (!isWritable(stream)) return
  stream.on('error', () => {})
  stream.end(args.map((arg) => `${arg}\0`).join(''))
}

function isWritable(stream: unknown): stream is NodeJS.WritableStream {
  return typeof stream === 'object' && stream !== null && 'end' in stream && 'on' in stream
}

function isReadable(stream: unknown): stream is NodeJS.ReadableStream & { setEncoding(e: 'utf8'): void } {
  return typeof stream === 'object' && stream !== null && 'on' in stream && 'setEncoding' in stream
}

/** Signals a process group; quiet when it is already gone. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // the group is gone
  }
}
