import { accessSync, constants } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import path from 'node:path'
import { ToolFailure } from '../tool.js'
import { bwrapArgs, type Confinement } from './bwrap-args.js'
import { type CommandEnvPolicy, commandEnvironment } from './command-env.js'
import type { SandboxMode } from './sandbox-mode.js'

export interface SandboxConfig {
  /** Default `auto`. */
  readonly mode?: SandboxMode
  /** False cuts the network (a network namespace with only loopback). Default true. */
  readonly network?: boolean
  /** Paths a command must not see (the store, the configuration and credentials, a transcript). */
  readonly hidden?: readonly string[]
  /** The bubblewrap executable. Default: `bwrap` on PATH. */
  readonly bwrap?: string
  /** Which of the agent's variables a command sees (sandboxed or not); default: the allow-list only. */
  readonly env?: CommandEnvPolicy
  /** Told the probe's answer once, whoever asked first (the start, or a first command). */
  readonly onProbed?: (state: SandboxState) => void
}

/** Whether commands are confined: the bubblewrap to run them with, or why they are not. */
export type SandboxState =
  | { readonly sandboxed: true; readonly bwrap: string }
  | { readonly sandboxed: false; readonly reason: string }

/** How to start one command: the executable and its arguments, and a note for its result. */
export interface CommandLaunch {
  readonly file: string
  readonly args: readonly string[]
  /** Said in the command's result when it ran unconfined. */
  readonly unsandboxedNote?: string
  /** The command's whole environment (see `commandEnvironment`). */
  readonly env: Readonly<Record<string, string>>
  /** It is bubblewrap, writing its info JSON to fd 3 (see `runLocalCommand`). */
  readonly sandboxInfoFd?: true
  /**
   * Bubblewrap's confinement arguments, read from fd 4 (`--args 4`) rather than its command line,
   * which the sandbox's PID 1 shows in `/proc/1/cmdline`: the hidden paths stay unnamed inside.
   */
  readonly sandboxArgs?: readonly string[]
}

const PROBE_TIMEOUT_MS = 10_000

/**
 * The sandbox `run_command` runs local commands in. Whether bubblewrap works here (a kernel or a
 * container without user namespaces refuses it) is probed once, by running `true` under the same
 * confinement a command gets; every command after that shares the answer.
 */
export class CommandSandbox {
  readonly mode: SandboxMode
  readonly network: boolean
  private readonly hidden: readonly string[]
  private readonly bwrap: string | undefined
  private readonly env: CommandEnvPolicy
  private readonly onProbed: ((state: SandboxState) => void) | undefined
  private state: Promise<SandboxState> | undefined

  constructor(config: SandboxConfig = {}) {
    this.mode = config.mode ?? 'auto'
    this.network = config.network ?? true
    this.hidden = (config.hidden ?? []).map((p) => path.resolve(p))
    this.bwrap = config.bwrap
    this.env = config.env ?? {}
    this.onProbed = config.onProbed
  }

  /** Whether commands run confined; probes on the first call only. */
  probe(): Promise<SandboxState> {
    this.state ??= this.check().then((state) => {
      this.onProbed?.(state)
      return state
    })
    return this.state
  }

  /** How to run `sh -c command` in `cwd`, confined to `cwd` and `additional` for writing. */
  async launch(command: string, cwd: string, additional: readonly string[] = []): Promise<CommandLaunch> {
    const shell = ['-c', command]
    const state = await this.probe()
    const env = commandEnvironment(this.env)
    if (!state.sandboxed) {
      if (this.mode === 'bwrap') throw new ToolFailure(`not run: the sandbox is required but ${state.reason}`)
      return {
        file: '/bin/sh',
        args: shell,
        env,
        unsandboxedNote: `[ran without a sandbox: ${state.reason}]`,
      }
    }
    const confinement = await this.confinement(cwd, additional)
    return {
      file: state.bwrap,
      args: ['--info-fd', '3', '--args', '4', '--', '/bin/sh', ...shell],
      sandboxArgs: bwrapArgs(confinement),
      env: { ...env, TMPDIR: '/tmp' },
      sandboxInfoFd: true,
    }
  }

  private async confinement(cwd: string, additional: readonly string[]): Promise<Confinement> {
    const realCwd = await realpath(cwd)
    const writable = [
      realCwd,
      ...(await Promise.all(additional.map((dir) => realpath(dir).catch(() => undefined)))),
    ]
    const hidden = await Promise.all(this.hidden.map(existing))
    return {
      cwd: realCwd,
      writable: writable.filter((dir): dir is string => dir !== undefined),
      hidden: hidden.flat(),
      network: this.network,
    }
  }

  private async check(): Promise<SandboxState> {
    if (this.mode === 'off') return { sandboxed: false, reason: 'the sandbox is off (--sandbox off)' }
    if (process.platform !== 'linux') return { sandboxed: false, reason: 'bubblewrap needs Linux' }
    const bwrap = this.bwrap ?? onPath('bwrap')
    if (bwrap === undefined) return { sandboxed: false, reason: 'bubblewrap (bwrap) is not installed' }
    const { execFile } = await import('node:child_process')
    const args = bwrapArgs({ cwd: '/', writable: [], hidden: [], network: this.network })
    return new Promise<SandboxState>((resolve) => {
      const options = { timeout: PROBE_TIMEOUT_MS, env: commandEnvironment(this.env) }
      execFile(bwrap, [...args, '--', '/bin/true'], options, (error, _out, stderr) => {
        if (!error) resolve({ sandboxed: true, bwrap })
        else {
          const why = String(stderr).trim().split('\n')[0] || error.message
          resolve({ sandboxed: false, reason: `bubblewrap does not work here (${why})` })
        }
      })
    })
  }
}

/** The real path of `p` (a mount follows symlinks) with whether it is a directory; none when absent. */
async function existing(p: string): Promise<{ path: string; directory: boolean }[]> {
  const real = await realpath(p).catch(() => undefined)
  const stats = real === undefined ? undefined : await lstat(real).catch(() => undefined)
  return real === undefined || stats === undefined ? [] : [{ path: real, directory: stats.isDirectory() }]
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (dir === '' || !path.isAbsolute(dir)) continue
    const candidate = path.join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}
