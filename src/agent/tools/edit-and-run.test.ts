import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { JsonValue } from '../../session/index.js'
import type { ClientBridge, TerminalBridge, ToolResult } from '../types.js'
import { COMMAND_OUTPUT_LIMIT, runCommandTool } from './command/run-command.js'
import { applyEdits, editTextFileTool } from './files/edit-text-file.js'
import type { Tool } from './tool.js'

let base: string
let cwd: string

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-edit-')))
  cwd = path.join(base, 'project')
  mkdirSync(cwd)
  mkdirSync(path.join(base, 'elsewhere'))
  await writeFile(path.join(cwd, 'app.ts'), 'const a = 1\nconst b = 2\nconst a2 = 1\n')
  await writeFile(path.join(base, 'elsewhere', 'x.ts'), 'const a = 1\n')
})

afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

/**
 * A result without the note a command run where the sandbox cannot work (no bubblewrap here) ends
 * with: these tests are about the command, whichever way it ran (sandbox.test.ts covers the note).
 */
function withoutSandboxNote(result: ToolResult): ToolResult {
  if (typeof result.output !== 'string') return result
  return { ...result, output: result.output.replace(/\n\[ran without a sandbox: [^\]\n]*\]$/, '') }
}

async function call(
  tool: Tool,
  input: JsonValue,
  client: ClientBridge = {},
  signal = new AbortController().signal,
  progress: (content: readonly JsonValue[]) => void = () => {},
): Promise<ToolResult> {
  try {
    return withoutSandboxNote(
      await tool.run(input, {
        sessionId: 'ses_1',
        cwd,
        callId: 'c1',
        turn: 1,

        client,
        signal,
        progress,
      }),
    )
  } catch (error) {
    return { output: (error as Error).message, isError: true }
  }
}

describe('edit_text_file', () => {
  it('replaces each span that occurs exactly once, and shows the whole change as an ACP diff', async () => {
    const result = await call(editTextFileTool, {
      path: 'app.ts',
      edits: [
        { oldText: 'const b = 2', newText: 'const b = 3' },
        { oldText: 'a2 = 1', newText: 'a2 = 10' },
      ],
    })
    const newText = 'const a = 1\nconst b = 3\nconst a2 = 10\n'
    expect(result).toEqual({
      output: 'Edited app.ts: 2 replacements (first at line 2).',
      content: [
        {
          type: 'diff',
          path: path.join(cwd, 'app.ts'),
          oldText: 'const a = 1\nconst b = 2\nconst a2 = 1\n',
          newText,
        },
      ],
    })
    expect(await readFile(path.join(cwd, 'app.ts'), 'utf8')).toBe(newText)
  })

  it.each([
    [
      [{ oldText: 'nope', newText: 'x' }],
      'edit 1 of 1: oldText was not found in app.ts; nothing was changed',
    ],
    [
      [{ oldText: ' = 1', newText: ' = 9' }],
      'edit 1 of 1: oldText occurs more than once in app.ts (lines 1 and 3); include more surrounding text to make it unique; nothing was changed',
    ],
    [
      [
        { oldText: 'const b', newText: 'x' },
        { oldText: 'b = 2', newText: 'y' },
      ],
      'edit 1 of 2 and edit 2 of 2 overlap; nothing was changed',
    ],
  ])('refuses %j with a clear message and writes nothing', async (edits, message) => {
    expect(await call(editTextFileTool, { path: 'app.ts', edits })).toEqual({
      output: message,
      isError: true,
    })
    expect(await readFile(path.join(cwd, 'app.ts'), 'utf8')).toBe('const a = 1\nconst b = 2\nconst a2 = 1\n')
  })

  it('refuses ../ and symlink escapes', async () => {
    await symlink(path.join(base, 'elsewhere'), path.join(cwd, 'out'))
    for (const requested of ['../elsewhere/x.ts', 'out/x.ts']) {
      const result = await call(editTextFileTool, {
        path: requested,
        edits: [{ oldText: 'const a', newText: 'pwned' }],
      })
      expect(result.isError, requested).toBe(true)
    }
    expect(await readFile(path.join(base, 'elsewhere', 'x.ts'), 'utf8')).toBe('const a = 1\n')
  })

  it('edits through the editor when it can read and write files', async () => {
    const writes: string[] = []
    const client: ClientBridge = {
      readTextFile: async () => 'unsaved buffer\n',
      writeTextFile: async (p, content) => {
        writes.push(`${p}: ${content}`)
      },
    }
    const result = await call(
      editTextFileTool,
      { path: 'app.ts', edits: [{ oldText: 'unsaved', newText: 'saved' }] },
      client,
    )
    expect(result.isError).toBeUndefined()
    expect(writes).toEqual([`${path.join(cwd, 'app.ts')}: saved buffer\n`])
  })

  it('applyEdits keeps the text around the spans', () => {
    expect(
      applyEdits(
        'abcdef',
        [
          { oldText: 'cd', newText: 'XY' },
          { oldText: 'a', newText: '' },
        ],
        'f',
      ),
    ).toBe('bXYef')
  })
})

describe('run_command as a local child process', () => {
  it('runs in cwd and reports the exit code with stdout and stderr', async () => {
    expect(await call(runCommandTool, { command: 'pwd; echo oops >&2' })).toEqual({
      output: `exit code 0\n${cwd}\noops\n`,
    })
    expect(await call(runCommandTool, { command: 'exit 3' })).toEqual({
      output: 'exit code 3\n',
      isError: true,
    })
  })

  it('does not pass the agent’s own secrets to the command', async () => {
    process.env.DSH_API_KEY = 'sk-secret-value'
    try {
      const result = await call(runCommandTool, { command: 'env' })
      expect(String(result.output)).not.toContain('sk-secret-value')
      expect(String(result.output)).toContain('PATH=')
    } finally {
      delete process.env.DSH_API_KEY
    }
  })

  it('caps the output and says so', async () => {
    const result = await call(runCommandTool, {
      command: `head -c ${COMMAND_OUTPUT_LIMIT + 100} /dev/zero | tr '\\0' x`,
    })
    const text = String(result.output)
    expect(text.startsWith(`exit code 0\n${'x'.repeat(100)}`)).toBe(true)
    expect(text.endsWith(`[output cut: it was longer than ${COMMAND_OUTPUT_LIMIT} bytes]`)).toBe(true)
    expect(text.length).toBeLessThan(COMMAND_OUTPUT_LIMIT + 200)
  })

  it('kills the whole process group on timeout', async () => {
    const marker = `dsh-timeout-${process.pid}-${Date.now()}`
    const result = await call(runCommandTool, {
      command: `sleep 30 & sleep 31; echo ${marker}`,
      timeoutSeconds: 1,
    })
    expect(result.isError).toBe(true)
    expect(String(result.output)).toMatch(/^timed out after 1 s and was killed/)
    await expectGone('sleep 3[01]')
  })

  it('kills the whole process group when the turn is cancelled', async () => {
    const controller = new AbortController()
    const pending = call(runCommandTool, { command: 'sleep 40 & sleep 41' }, {}, controller.signal)
    await vi.waitFor(() => expect(processesMatching('sleep 4[01]')).toHaveLength(2), {
      timeout: 10_000,
      interval: 20,
    })
    controller.abort()
    expect(await pending).toMatchObject({ isError: true, output: 'the command was cancelled' })
    await expectGone('sleep 4[01]')
  })
})

/**
 * Waits until no live process matches `pattern`. A killed process closes its pipes (which ends the
 * tool call) a moment before it stops being listed as live; one the tool failed to kill (these
 * sleep 30 s or more) outlives the wait.
 */
async function expectGone(pattern: string): Promise<void> {
  await vi.waitFor(() => expect(processesMatching(pattern)).toEqual([]), { timeout: 5_000, interval: 20 })
}

/** Live processes (ours) whose command line matches the extended regex `pattern`. */
function processesMatching(pattern: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
  return out.split('\n').filter((line) => new RegExp(`^\\s*\\d+\\s+[^Z]\\S*\\s+${pattern}$`).test(line))
}

describe('run_command in the editor terminal', () => {
  function fakeTerminal(exit: { exitCode: number | null; signal: string | null }, hang = false) {
    const calls: string[] = []
    let waited: () => void = () => {}
    /** Resolves once the tool waits for the command's exit. */
    const waiting = new Promise<void>((resolve) => {
      waited = resolve
    })
    const terminal: TerminalBridge = {
      create: async (command) => {
        calls.push(`create ${command.command} ${command.args?.join(' ')} in ${command.cwd}`)
        return 'term_1'
      },
      waitForExit: (id, signal) =>
        new Promise((resolve, reject) => {
          calls.push(`wait ${id}`)
          waited()
          if (!hang) resolve(exit)
          signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))
        }),
      output: async (id) => {
        calls.push(`output ${id}`)
        return { output: 'built\n', truncated: false, exitStatus: exit }
      },
      kill: async (id) => {
        calls.push(`kill ${id}`)
      },
      release: async (id) => {
        calls.push(`release ${id}`)
      },
    }
    return { calls, terminal, waiting }
  }

  it('creates a terminal, embeds it while running, waits, reads the output and releases it', async () => {
    const { calls, terminal } = fakeTerminal({ exitCode: 0, signal: null })
    const progress: JsonValue[] = []
    const result = await call(runCommandTool, { command: 'make' }, { terminal }, undefined, (c) =>
      progress.push(...c),
    )
    expect(result).toEqual({
      output: 'exit code 0\nbuilt\n',
      content: [{ type: 'terminal', terminalId: 'term_1' }],
    })
    expect(progress).toEqual([{ type: 'terminal', terminalId: 'term_1' }])
    expect(calls).toEqual([
      `create /bin/sh -c make in ${cwd}`,
      'wait term_1',
      'output term_1',
      'release term_1',
    ])
  })

  it('kills and releases the terminal when the turn is cancelled', async () => {
    const { calls, terminal, waiting } = fakeTerminal({ exitCode: null, signal: null }, true)
    const controller = new AbortController()
    const pending = call(runCommandTool, { command: 'sleep 100' }, { terminal }, controller.signal)
    await waiting
    controller.abort()
    expect((await pending).isError).toBe(true)
    expect(calls).toEqual([
      `create /bin/sh -c sleep 100 in ${cwd}`,
      'wait term_1',
      'kill term_1',
      'release term_1',
    ])
  })

  it('kills the terminal on timeout and reports it', async () => {
    const { calls, terminal } = fakeTerminal({ exitCode: null, signal: 'SIGTERM' }, true)
    const result = await call(runCommandTool, { command: 'sleep 100', timeoutSeconds: 1 }, { terminal })
    expect(result).toMatchObject({ isError: true })
    expect(String(result.output)).toMatch(/^timed out after 1 s and was killed\nbuilt\n/)
    expect(calls).toEqual([
      `create /bin/sh -c sleep 100 in ${cwd}`,
      'wait term_1',
      'kill term_1',
      'output term_1',
      'release term_1',
    ])
  })
})
