import { execFileSync } from 'node:child_process'
import { link, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../../test/support/turn-harness.js'
import type { JsonValue } from '../../../session/index.js'
import { createScriptProvider } from '../../providers/script.js'
import { parseModelScript } from '../../providers/script-format.js'
import type { ClientBridge, ToolResult } from '../../types.js'
import { ToolRegistry } from '../registry.js'
import type { Tool } from '../tool.js'
import { MAX_TEXT_FILE_BYTES } from './local-files.js'
import { readTextFileTool } from './read-text-file.js'
import { writeTextFileTool } from './write-text-file.js'

let base: string
let cwd: string
let outside: string

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-tools-')))
  cwd = path.join(base, 'project')
  outside = path.join(base, 'elsewhere')
  await mkdir(path.join(cwd, 'src'), { recursive: true })
  await mkdir(outside)
  await writeFile(path.join(cwd, 'src', 'a.txt'), 'one\ntwo\nthree\nfour\n')
  await writeFile(path.join(outside, 'secret.txt'), 'top secret')
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function call(tool: Tool, input: JsonValue, client: ClientBridge = {}): Promise<ToolResult> {
  const signal = new AbortController().signal
  try {
    return await tool.run(input, {
      sessionId: 'ses_1',
      cwd,
      callId: 'call_1',
      turn: 1,
      client,
      signal,
      progress: () => {},
    })
  } catch (error) {
    return { output: (error as Error).message, isError: true }
  }
}

describe('read_text_file on the local disk', () => {
  it('reads relative and absolute paths inside cwd, with a line range', async () => {
    expect(await call(readTextFileTool, { path: 'src/a.txt' })).toEqual({ output: 'one\ntwo\nthree\nfour\n' })
    const absolute = path.join(cwd, 'src', 'a.txt')
    expect(await call(readTextFileTool, { path: absolute, line: 2, limit: 2 })).toEqual({
      output: 'two\nthree\n',
    })
  })

  it.each([
    ['a ../ escape', '../elsewhere/secret.txt'],
    ['an absolute path outside', '/etc/hostname'],
    ['a sneaky ../ inside a path', 'src/../../elsewhere/secret.txt'],
  ])('refuses %s', async (_name, requested) => {
    const result = await call(readTextFileTool, { path: requested })
    expect(result.isError).toBe(true)
    expect(String(result.output)).toContain('outside')
  })

  it('refuses a symlink that leads out of cwd', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(cwd, 'link.txt'))
    await symlink(outside, path.join(cwd, 'linkdir'))
    for (const requested of ['link.txt', 'linkdir/secret.txt']) {
      const result = await call(readTextFileTool, { path: requested })
      expect(result).toMatchObject({ isError: true })
      expect(String(result.output)).toContain('symbolic link')
    }
  })

  it('follows a symlink that stays inside cwd', async () => {
    await symlink(path.join(cwd, 'src', 'a.txt'), path.join(cwd, 'alias.txt'))
    expect((await call(readTextFileTool, { path: 'alias.txt', limit: 1 })).output).toBe('one\n')
  })

  it('its declared schema refuses malformed input', async () => {
    const entry = new ToolRegistry([readTextFileTool]).forSession('ses_1').get('read_text_file')
    expect(await entry?.invalid({ path: 'src/a.txt', line: 0 })).toBe('input.line must be >= 1')
    expect(await entry?.invalid('src/a.txt')).toBe('input must be object')
    expect(await entry?.invalid({ path: 'a', extra: 1 })).toBe('input must NOT have additional properties')
    expect(await entry?.invalid({ path: 'src/a.txt', line: 2 })).toBeUndefined()
  })

  it('gives a clear message instead of the bytes of a binary or oversized file', async () => {
    await writeFile(path.join(cwd, 'blob.bin'), Buffer.from([1, 2, 0, 3]))
    await writeFile(path.join(cwd, 'huge.txt'), Buffer.alloc(MAX_TEXT_FILE_BYTES + 1, 'a'))
    expect(await call(readTextFileTool, { path: 'blob.bin' })).toEqual({
      output: 'blob.bin is a binary file (4 bytes); its bytes are not shown',
      isError: true,
    })
    const huge = await call(readTextFileTool, { path: 'huge.txt' })
    expect(huge.isError).toBe(true)
    expect(String(huge.output)).toContain(`huge.txt is ${MAX_TEXT_FILE_BYTES + 1} bytes, more than`)
  })
})

describe('write_text_file on the local disk', () => {
  it('writes inside cwd (creating directories) and shows the change as a diff', async () => {
    const result = await call(writeTextFileTool, { path: 'new/dir/b.txt', content: 'hi' })
    expect(result).toEqual({
      output: 'Wrote 2 bytes to new/dir/b.txt',
      content: [{ type: 'diff', path: path.join(cwd, 'new', 'dir', 'b.txt'), oldText: null, newText: 'hi' }],
    })
    expect(await readFile(path.join(cwd, 'new', 'dir', 'b.txt'), 'utf8')).toBe('hi')
    const replaced = await call(writeTextFileTool, { path: 'src/a.txt', content: 'new\n' })
    expect(replaced.content).toEqual([
      {
        type: 'diff',
        path: path.join(cwd, 'src', 'a.txt'),
        oldText: 'one\ntwo\nthree\nfour\n',
        newText: 'new\n',
      },
    ])
  })

  it('refuses escapes by ../, by a symlinked directory and by a dangling symlink', async () => {
    await symlink(outside, path.join(cwd, 'linkdir'))
    await symlink(path.join(outside, 'planted.txt'), path.join(cwd, 'dangling.txt'))
    for (const requested of ['../elsewhere/x.txt', 'linkdir/x.txt', 'linkdir/deep/x.txt', 'dangling.txt']) {
      const result = await call(writeTextFileTool, { path: requested, content: 'x' })
      expect(result, requested).toMatchObject({ isError: true })
    }
    await expect(readFile(path.join(outside, 'x.txt'))).rejects.toThrow()
    await expect(readFile(path.join(outside, 'planted.txt'))).rejects.toThrow()
  })
})

describe('through the editor', () => {
  it('reads and writes with the client bridge, with absolute paths, never the local disk', async () => {
    const calls: string[] = []
    const client: ClientBridge = {
      readTextFile: async (p) => {
        calls.push(`read ${p}`)
        return 'a\nb\nc\n'
      },
      writeTextFile: async (p, content) => {
        calls.push(`write ${p} ${content}`)
      },
    }
    expect(await call(readTextFileTool, { path: 'unsaved.txt', line: 2 }, client)).toEqual({
      output: 'b\nc\n',
    })
    expect(
      (await call(writeTextFileTool, { path: 'src/a.txt', content: 'new' }, client)).isError,
    ).toBeUndefined()
    expect(calls).toEqual([
      `read ${path.join(cwd, 'unsaved.txt')}`,
      `read ${path.join(cwd, 'src', 'a.txt')}`,
      `write ${path.join(cwd, 'src', 'a.txt')} new`,
    ])
    expect(await readFile(path.join(cwd, 'src', 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n')
    expect(await call(readTextFileTool, { path: '../elsewhere/secret.txt' }, client)).toMatchObject({
      isError: true,
    })
    expect(calls).toHaveLength(3)
  })
})

describe('confinement resolves real paths on our side', () => {
  const editor = (calls: string[]): ClientBridge => ({
    readTextFile: async (p) => {
      calls.push(`read ${p}`)
      return 'from the editor'
    },
    writeTextFile: async (p) => {
      calls.push(`write ${p}`)
    },
  })

  it('refuses symlinks inside cwd that lead outside before asking the editor to read or write', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(cwd, 'link.txt'))
    await symlink(outside, path.join(cwd, 'linkdir'))
    await symlink(path.join(outside, 'planted.txt'), path.join(cwd, 'dangling.txt'))
    const calls: string[] = []
    for (const requested of ['link.txt', 'linkdir/secret.txt', 'linkdir/new/x.txt']) {
      expect(await call(readTextFileTool, { path: requested }, editor(calls)), requested).toMatchObject({
        isError: true,
      })
    }
    for (const requested of ['link.txt', 'linkdir/x.txt', 'linkdir/deep/x.txt', 'dangling.txt']) {
      const result = await call(writeTextFileTool, { path: requested, content: 'x' }, editor(calls))
      expect(result, requested).toMatchObject({ isError: true })
    }
    expect(calls).toEqual([])
  })

  it('hands the editor the real path of a symlink that stays inside cwd', async () => {
    await symlink(path.join(cwd, 'src'), path.join(cwd, 'alias'))
    const calls: string[] = []
    await call(readTextFileTool, { path: 'alias/a.txt' }, editor(calls))
    await call(writeTextFileTool, { path: 'alias/new.txt', content: 'x' }, editor(calls))
    expect(calls).toEqual([
      `read ${path.join(cwd, 'src', 'a.txt')}`,
      `read ${path.join(cwd, 'src', 'new.txt')}`,
      `write ${path.join(cwd, 'src', 'new.txt')}`,
    ])
  })

  it('refuses to write a file with a second hard link (locally and through the editor), reads it', async () => {
    await link(path.join(outside, 'secret.txt'), path.join(cwd, 'hard.txt'))
    const calls: string[] = []
    for (const client of [{}, editor(calls)]) {
      const result = await call(writeTextFileTool, { path: 'hard.txt', content: 'clobbered' }, client)
      expect(result).toMatchObject({ isError: true, output: expect.stringContaining('hard links') })
    }
    expect(calls).toEqual([])
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret')
    expect((await call(readTextFileTool, { path: 'hard.txt' })).output).toBe('top secret')
  })

  it('refuses to write over a directory or a FIFO', async () => {
    const fifo = path.join(cwd, 'pipe')
    execFileSync('mkfifo', [fifo])
    for (const requested of ['src', 'pipe']) {
      const result = await call(writeTextFileTool, { path: requested, content: 'x' })
      expect(result, requested).toMatchObject({
        isError: true,
        output: expect.stringContaining('not a regular file'),
      })
    }
  })
})

describe('file tools in a turn', () => {
  let ctx: Context | undefined
  afterEach(async () => {
    await ctx?.stop()
    ctx = undefined
  })

  const writeTurn = [
    [
      [{ toolCall: { name: 'write_text_file', input: { path: 'out.txt', content: 'from the model' } } }],
      [{ text: 'after the write' }],
    ],
  ]

  it.each([
    [true, false],
    [false, true],
  ])('permission granted=%s: the result says so, and the model goes on', async (granted, isError) => {
    ctx = await startAgent({ provider: createScriptProvider(parseModelScript(writeTurn)) })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const req = request('write it', {
      requestPermission: async () => (granted ? 'allow_once' : 'reject_once'),
    })
    const outcome = await ctx.agent.runTurn(session, req)
    expect(outcome.stopReason).toBe('end_turn')
    const events = session.events()
    expect(events.find((e) => e.type === 'tool/call')?.data).toMatchObject({
      kind: 'edit',
      title: 'Write out.txt',
    })
    const result = events.find((e) => e.type === 'tool/result')
    expect(result?.data.isError === true).toBe(isError)
    expect(events.find((e) => e.type === 'assistant/message')?.data).toMatchObject({
      content: 'after the write',
    })
    const written = await readFile(path.join(cwd, 'out.txt'), 'utf8').catch(() => undefined)
    expect(written).toBe(granted ? 'from the model' : undefined)
    const toolCall = req.live.find((u) => u.update.sessionUpdate === 'tool_call')
    expect(toolCall?.update).toMatchObject({
      kind: 'edit',
      title: 'Write out.txt',
      rawInput: { path: 'out.txt' },
    })
  })
})
