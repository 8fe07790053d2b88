import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import type { Readable, Writable } from 'node:stream'
import { LineSplitter, type WireDirection } from '../jsonrpc/index.js'
import { TranscriptRecorder } from '../process/transcript.js'
import type { AgentExit } from './agent-exit.js'

/** The agent to start: an executable (looked up on PATH) and its arguments. */
export interface AgentCommand {
  readonly command: string
  readonly args: readonly string[]
}

export interface RecordOptions {
  /** The transcript file; entries are appended (a second connection adds its own lines). */
  readonly out: string
  readonly agent: AgentCommand
  /** The editor's side; default the process's stdin and stdout. */
  readonly input?: Readable
  readonly output?: Writable
  /** Diagnostics (never the protocol stream); default stderr. */
  readonly log?: (message: string) => void
}

/** Signals passed on to the agent while recording. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR2',
]

/** Lines longer than this are forwarded but not recorded (a warning says so). */
const RECORD_MAX_LINE_BYTES = 256 * 1024 * 1024

/** The agent could not be started (no such command, not executable). */
export class AgentStartError extends Error {
  override name = 'AgentStartError'
}

/**
 * `dsh-acp record`: starts the agent and copies bytes both ways unchanged, each chunk forwarded
 * the moment it arrives (no reframing, no reordering; backpressure is passed on), while every
 * complete line is appended to `out` as a transcript entry with its direction and time offset.
 * Either side closing first loses nothing: the editor's EOF is passed on and the agent's output is
 * still copied and recorded until it exits; an editor that stops reading (EPIPE) still gets every
 * agent line recorded. Signals in {@link FORWARDED_SIGNALS} are passed to the agent. Resolves once
 * the agent has exited and closed its output, with how it ended, after the transcript is fsynced.
 * The transcript never holds MCP server secrets: the `env` and `headers` values of a message's
 * `mcpServers` (`session/new`, `load`, `resume`, `fork`) are recorded as `***` (`redactMcpSecrets`;
 * the agent gets the bytes as sent), and a line not valid UTF-8 that carries `mcpServers` is
 * recorded as its decoded text, redacted.
 * A transcript that cannot be written any more (a full disk) stops recording with one warning; the
 * proxying goes on. Rejects with {@link AgentStartError} when the agent cannot be started, and
 * with `TranscriptOpenError` before starting it when `out` cannot be opened (a symbolic link).
 */
export async function record(options: RecordOptions): Promise<AgentExit> {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const log = options.log ?? ((message: string) => process.stderr.write(`dsh-acp record: ${message}\n`))
  const started = performance.now()
  const recorder = new TranscriptRecorder(options.out, {
    elapsed: () => performance.now() - started,
    onStopped: (error) =>
      log(`recording stopped (${error.message}): the agent and the editor stay connected, unrecorded`),
  })
  const child = spawn(options.agent.command, [...options.agent.args], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<AgentExit>((resolve, reject) => {
    child.once('error', (error) =>
      reject(new AgentStartError(`cannot start ${options.agent.command}: ${error.message}`)),
    )
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward)
  const recording: Recording = { recorder, log }
  const stopInput = copyRecorded({ source: input, target: child.stdin, dir: 'in' }, recording)
  copyRecorded({ source: child.stdout, target: output, dir: 'out' }, recording)
  try {
    return await exited
  } finally {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forward)
    stopInput()
    await recorder.close()
  }
}

/** One direction of the relay: what is read, where it goes, and which way that is. */
interface Pipe {
  readonly source: Readable
  readonly target: Writable
  readonly dir: WireDirection
}

/** Where both directions are recorded, and where the relay's problems are said. */
interface Recording {
  readonly recorder: TranscriptRecorder
  readonly log: (message: string) => void
}

/**
 * Copies `source` to `target` chunk by chunk and records each complete line of it. Returns a
 * function that stops reading `source` (for the editor's side once the agent is gone).
 */
function copyRecorded({ source, target, dir }: Pipe, { recorder, log }: Recording): () => void {
  const splitter = new LineSplitter(
    {
      line: (text, validUtf8, bytes) => {
        // A line with mcpServers is recorded as text even when not valid UTF-8: redacted.
        if (validUtf8 || text.includes('"mcpServers"')) recorder.record(dir, text)
        else if (bytes) recorder.recordBytes(dir, bytes)
      },
      overflow: (max) =>
        log(
          `a line ${dir === 'in' ? 'to' : 'from'} the agent over ${max} bytes was passed on but not recorded`,
        ),
    },
    RECORD_MAX_LINE_BYTES,
  )
  let targetOpen = true
  target.on('error', () => {
    targetOpen = false
    source.resume()
  })
  const onData = (chunk: Buffer) => {
    if (targetOpen && !target.write(chunk)) {
      source.pause()
      target.once('drain', () => source.resume())
    }
    splitter.push(chunk)
  }
  source.on('data', onData)
  source.once('end', () => {
    splitter.end()
    if (targetOpen) target.end()
  })
  source.on('error', (error) =>
    log(`reading ${dir === 'in' ? 'the editor' : 'the agent'} failed: ${error.message}`),
  )
  return () => {
    source.off('data', onData)
    source.pause()
    source.destroy()
  }
}
