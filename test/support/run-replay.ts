import { spawn } from 'node:child_process'
import { CLI } from './agent-process.js'

export interface ReplayRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built `dsh-acp replay ARGS` with `env` added to the environment; resolves once it has closed. */
export function runReplay(args: readonly string[], env: Record<string, string> = {}): Promise<ReplayRun> {
  const child = spawn(process.execPath, [CLI, 'replay', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  return new Promise((done) => child.once('close', (status) => done({ status, stdout, stderr })))
}
