import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { type AgentOptions, AgentProcess } from './agent-process.js'

/** What one test starts and makes, all gone once the test ends (see {@link testResources}). */
export interface TestResources {
  /** Starts an agent process; it is killed after the test and its own temp store removed. */
  start(options?: AgentOptions): AgentProcess
  /** An agent process started another way, ended after the test like the ones `start` starts. */
  track(agent: AgentProcess): AgentProcess
  /** A fresh temp directory whose name starts with `prefix`, removed after the test. */
  tempDir(prefix: string): string
}

/**
 * The shared set-up of end-to-end test files: registers, in the calling file, an `afterEach` that
 * prints the stderr of a failed test's agents, kills every agent a test started and is still
 * running, removes the temp store each made for itself, and removes every directory the test made
 * with `tempDir`.
 */
export function testResources(): TestResources {
  const agents: AgentProcess[] = []
  const dirs: string[] = []
  afterEach(async (t) => {
    // A failed test shows what its agents said on stderr.
    if (t.task.result?.state === 'fail') for (const agent of agents) console.error(agent.stderr)
    for (const agent of agents.splice(0)) {
      if (agent.child.exitCode === null) await agent.kill()
      agent.cleanup()
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  const track = (agent: AgentProcess): AgentProcess => {
    agents.push(agent)
    return agent
  }
  return {
    start: (options = {}) => track(new AgentProcess(options)),
    track,
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
  }
}
