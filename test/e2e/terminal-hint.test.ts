import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CLI } from '../support/agent-process.js'

/** util-linux `script` runs a command on a pseudo-terminal: stdin is a TTY, as when a person starts it. */
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
const HINT = /speaks the Agent Client Protocol .* on stdin and stdout/

describe('started by hand', () => {
  it.skipIf(!hasScript)(
    'on a terminal it says on stderr what it speaks and how to try it, then serves',
    () => {
      const initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}'
      const run = spawnSync('script', ['-qec', `${process.execPath} ${CLI} --memory`, '/dev/null'], {
        input: `${initialize}\n\u0004`,
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(HINT)
      expect(run.stdout).toMatch(/"id":0,"result":\{"protocolVersion":1/)
    },
  )

  it('started by an editor (stdin a pipe) it prints no hint', () => {
    const run = spawnSync(process.execPath, [CLI, '--memory'], { input: '', encoding: 'utf8' })
    expect(run.status).toBe(0)
    expect(run.stderr).not.toMatch(HINT)
    expect(run.stdout).toBe('')
  })
})
