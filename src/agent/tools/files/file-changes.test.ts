import {
  appendFile,
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { JsonValue } from '../../../session/index.js'
import type { ToolResult } from '../../types.js'
import type { Tool, ToolPreview } from '../tool.js'
import { editTextFileTool } from './edit-text-file.js'
import { writeTextFileTool } from './write-text-file.js'

/**
 * Issue 28 #10: an edit never corrupts a file that is not UTF-8, and neither an edit nor a write
 * loses what another process wrote to the file after the tool read it: the file is replaced
 * atomically (keeping its mode) and only if it is still the version that was read.
 */

/** Runs after every local read of the file tools while set: "another process" writing meanwhile. */
let afterRead: ((file: string) => Promise<void>) | undefined

vi.mock('./local-files.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./local-files.js')>()
  return {
    ...original,
    readLocalFile: async (target: string, requested: string) => {
      const snapshot = await original.readLocalFile(target, requested)
      await afterRead?.(target)
      return snapshot
    },
  }
})

let cwd: string

beforeEach(async () => {
  cwd = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-changes-')))
})
afterEach(async () => {
  afterRead = undefined
  await rm(cwd, { recursive: true, force: true })
})

async function call(tool: Tool, input: JsonValue, previewed?: ToolPreview): Promise<ToolResult> {
  try {
    return await tool.run(input, {
      sessionId: 'ses_1',
      cwd,
      callId: 'call_1',
      turn: 1,
      client: {},
      signal: new AbortController().signal,
      progress: () => {},
      ...(previewed && { previewed }),
    })
  } catch (error) {
    return { output: (error as Error).message, isError: true }
  }
}

const edit = (oldText: string, newText: string) => ({ path: 'f.txt', edits: [{ oldText, newText }] })

describe('edit_text_file and a file that is not UTF-8', () => {
  it('refuses a Latin-1 file with a clear error and leaves its bytes as they were', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\nna\xefve = 2\n', 'latin1')
    await writeFile(path.join(cwd, 'f.txt'), latin1)
    const result = await call(editTextFileTool, edit('= 1', '= 3'))
    expect(result.isError).toBe(true)
    expect(String(result.output)).toMatch(/not valid UTF-8.*nothing was changed/)
    expect(await readFile(path.join(cwd, 'f.txt'))).toEqual(latin1)
  })

  it('keeps a byte order mark and edits valid UTF-8 as before', async () => {
    await writeFile(path.join(cwd, 'f.txt'), '\ufeffcafé = 1\n')
    expect((await call(editTextFileTool, edit('= 1', '= 3'))).isError).toBeUndefined()
    expect(await readFile(path.join(cwd, 'f.txt'), 'utf8')).toBe('\ufeffcafé = 3\n')
  })
})

describe('a file that changes between read and write', () => {
  it('an edit writes nothing and says so when another process appended after the read', async () => {
    const file = path.join(cwd, 'f.txt')
    await writeFile(file, 'count = 1\n')
    afterRead = (target) => appendFile(target, 'appended by another process\n')
    const result = await call(editTextFileTool, edit('count = 1', 'count = 2'))
    expect(result).toMatchObject({ isError: true })
    expect(String(result.output)).toContain('changed since it was read; read it again; nothing was written')
    expect(await readFile(file, 'utf8')).toBe('count = 1\nappended by another process\n')
  })

  it('a write does not replace a file that changed after it was read', async () => {
    const file = path.join(cwd, 'f.txt')
    await writeFile(file, 'old\n')
    afterRead = (target) => appendFile(target, 'more\n')
    expect(String((await call(writeTextFileTool, { path: 'f.txt', content: 'new\n' })).output)).toContain(
      'changed since it was read',
    )
    expect(await readFile(file, 'utf8')).toBe('old\nmore\n')
  })

  it('a write refuses when the file is not the one the user approved', async () => {
    await writeFile(path.join(cwd, 'f.txt'), 'now\n')
    const approved: ToolPreview = { content: [], basis: 'what the user was shown\n' }
    const result = await call(writeTextFileTool, { path: 'f.txt', content: 'new\n' }, approved)
    expect(String(result.output)).toContain('changed after the change was shown for approval')
    expect(await readFile(path.join(cwd, 'f.txt'), 'utf8')).toBe('now\n')
    const none: ToolPreview = { content: [], basis: null }
    expect((await call(writeTextFileTool, { path: 'f.txt', content: 'new\n' }, none)).isError).toBe(true)
  })
})

describe('the replacement', () => {
  it('keeps the mode, leaves no temporary file, and edits the target of a symlink inside cwd', async () => {
    await mkdir(path.join(cwd, 'real'))
    const target = path.join(cwd, 'real', 'f.txt')
    await writeFile(target, 'a = 1\n')
    await chmod(target, 0o640)
    await symlink(target, path.join(cwd, 'f.txt'))
    const before = await stat(target)
    expect((await call(editTextFileTool, edit('a = 1', 'a = 2'))).isError).toBeUndefined()
    const after = await stat(target)
    expect(await readFile(target, 'utf8')).toBe('a = 2\n')
    expect(after.mode & 0o7777).toBe(0o640)
    expect(after.ino).not.toBe(before.ino) // replaced by a rename, not rewritten in place
    expect((await stat(path.join(cwd, 'f.txt'))).ino).toBe(after.ino) // the link still leads to it
    expect(await readdir(path.join(cwd, 'real'))).toEqual(['f.txt'])
  })

  it('a new file gets created with its directories', async () => {
    const result = await call(writeTextFileTool, { path: 'a/b/new.txt', content: 'x\n' })
    expect(result.isError).toBeUndefined()
    expect(await readFile(path.join(cwd, 'a', 'b', 'new.txt'), 'utf8')).toBe('x\n')
  })
})
