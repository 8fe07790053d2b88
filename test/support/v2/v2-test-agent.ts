import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { V2AgentProcess } from './v2-agent-process.js'

/**
 * One built agent per test, driven by the SDK's v2 client, in a fresh temp directory: `start`
 * makes the directory and spawns the agent with the arguments `args` gives for it; after each
 * test the agent is stopped and the directory removed.
 */
export function v2TestAgent(prefix: string) {
  let agent: V2AgentProcess | undefined
  let dir: string | undefined
  afterEach(async () => {
    await agent?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
    agent = dir = undefined
  })
  return {
    start(args: (dir: string) => readonly string[]): { agent: V2AgentProcess; dir: string } {
      dir = mkdtempSync(join(tmpdir(), prefix))
      agent = new V2AgentProcess({ args: args(dir) })
      return { agent, dir }
    },
  }
}

/** The request's error code and message, or undefined when it succeeded. */
export const failure = (request: Promise<unknown>) =>
  request.then(
    () => undefined,
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  )
