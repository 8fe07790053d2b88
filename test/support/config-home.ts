import { spawn } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trustFile, writeDecision } from '../../src/process/trust/trust-store.js'
import { CLI } from './agent-process.js'

/** A fresh HOME with its own config home, as a new user has: nothing configured. */
export class ConfigHome {
  readonly home = mkdtempSync(join(tmpdir(), 'dsh-acp-home-'))
  readonly configHome = join(this.home, '.config')
  readonly dir = join(this.configHome, 'dsh-acp')
  readonly configFile = join(this.dir, 'config.json')
  readonly credentialsFile = join(this.dir, 'credentials.json')

  /** The environment an agent or the set-up runs with. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { HOME: this.home, XDG_CONFIG_HOME: this.configHome, ...extra }
  }

  writeConfig(value: unknown): void {
    mkdirSync(this.dir, { recursive: true })
    writeFileSync(this.configFile, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  }

  /**
   * Trusts the folder `path` (its real path) as `dsh-acp trust add` does: sessions in it and below
   * use its project configuration (.dsh-acp/config.json).
   */
  trust(path: string): void {
    const at = new Date().toISOString()
    writeDecision(trustFile(this.env(), this.home), realpathSync(path), {
      decision: 'trusted',
      scope: 'repo',
      at,
    })
  }

  /** The permission bits of the credentials file. */
  credentialsMode(): number {
    return statSync(this.credentialsFile).mode & 0o777
  }

  /** Runs `dsh-acp ARGS` (stdin `input`) and gives its exit code and output. */
  run(
    args: readonly string[],
    input = '',
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, ...this.env(env) },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8')
      })
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
      })
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, stdout, stderr }))
      child.stdin.end(input)
    })
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true })
  }
}

/** The text of every file under `dir`, concatenated (to look for a secret in a store). */
export function allFileText(dir: string): string {
  let text = ''
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += readFileSync(join(entry.parentPath, entry.name), 'utf8')
  }
  return text
}
