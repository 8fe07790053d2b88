import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk'

/** The stdio MCP server script the tests spawn through the agent. */
export const STDIO_SERVER = resolve(import.meta.dirname, 'stdio-server.mjs')

/** An ACP stdio `McpServer` running the test server with `args`, and `env`. */
export function stdioServer(
  name: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): acp.McpServerStdio {
  return {
    name,
    command: process.execPath,
    args: [STDIO_SERVER, ...args],
    env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
  }
}

/** The pids a `--pidfile` collected. */
export function pidsIn(file: string): number[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number)
}

/** Whether a process with this pid is alive (and not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.split(') ')[1]?.[0] !== 'Z'
  } catch {
    return false
  }
}

/** Resolves once `check` holds, polling; rejects after `ms`. */
export async function eventually(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Resolves once the agent's log (its stderr) says that `server` of `sessionId` connected: its tools
 * are offered from the next model request on. Servers connect in the background of `session/new`.
 */
export function serverReady(stderr: () => string, sessionId: string, server: string): Promise<void> {
  return eventually(() => stderr().includes(`MCP server ${server} of ${sessionId}: `))
}
