import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../../session/index.js'
import type { ToolResult } from '../../types.js'
import { listDirectoryTool } from '../files/list-directory.js'
import type { Tool } from '../tool.js'
import { findFilesTool, MAX_FOUND_FILES } from './find-files.js'
import { MAX_RESULT_LINE, searchTextTool } from './search-text.js'

let base: string
let cwd: string

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-search-')))
  cwd = path.join(base, 'project')
  const files: Record<string, string> = {
    '.gitignore': 'dist/\n*.log\n',
    'src/app.ts': 'export const answer = 42\n// TODO: more\n',
    'src/lib/util.ts': 'export function todo() {}\n',
    'src/lib/.gitignore': 'generated.ts\n',
    'src/lib/generated.ts': 'TODO generated\n',
    'dist/app.js': 'TODO built\n',
    'debug.log': 'TODO logged\n',
    '.git/config': 'TODO git internals\n',
    'README.md': '# Project\nTODO docs\n',
  }
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(cwd, name)), { recursive: true })
    await writeFile(path.join(cwd, name), text)
  }
  await mkdir(path.join(base, 'elsewhere'))
  await writeFile(path.join(base, 'elsewhere', 'secret.ts'), 'TODO secret\n')
})

afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

async function call(tool: Tool, input: JsonValue): Promise<ToolResult> {
  const context = {
    sessionId: 'ses_1',
    cwd,
    callId: 'c',
    turn: 1,
    client: {},
    signal: new AbortController().signal,
    progress: () => {},
  }
  try {
    return await tool.run(input, context)
  } catch (error) {
    return { output: (error as Error).message, isError: true }
  }
}

describe('list_directory', () => {
  it('lists cwd (default) and a subdirectory, directories marked, sorted', async () => {
    expect((await call(listDirectoryTool, {})).output).toBe(
      ['.git/', '.gitignore', 'README.md', 'debug.log', 'dist/', 'src/'].join('\n'),
    )
    expect((await call(listDirectoryTool, { path: 'src' })).output).toBe('app.ts\nlib/')
  })

  it('refuses ../ and symlink escapes, and says what is wrong with a file or a missing path', async () => {
    await symlink(path.join(base, 'elsewhere'), path.join(cwd, 'out'))
    for (const requested of ['..', '../elsewhere', 'out', '/etc']) {
      const result = await call(listDirectoryTool, { path: requested })
      expect(result.isError, requested).toBe(true)
      expect(String(result.output)).toMatch(/outside/)
    }
    expect(await call(listDirectoryTool, { path: 'README.md' })).toEqual({
      output: 'README.md is not a directory',
      isError: true,
    })
    expect(await call(listDirectoryTool, { path: 'nope' })).toEqual({
      output: 'nope does not exist',
      isError: true,
    })
  })
})

describe('find_files', () => {
  it('matches globs relative to cwd, skipping .git and what .gitignore files (root and nested) ignore', async () => {
    expect((await call(findFilesTool, { pattern: '**/*.ts' })).output).toBe('src/app.ts\nsrc/lib/util.ts')
    expect((await call(findFilesTool, { pattern: '**/*' })).output).toBe(
      ['.gitignore', 'README.md', 'src/app.ts', 'src/lib/.gitignore', 'src/lib/util.ts'].join('\n'),
    )
    expect((await call(findFilesTool, { pattern: 'src/**/*.ts', path: 'src/lib' })).output).toBe(
      'src/lib/util.ts',
    )
    expect((await call(findFilesTool, { pattern: '*.{md,json}' })).output).toBe('README.md')
    expect((await call(findFilesTool, { pattern: '*.xyz' })).output).toBe('No files match *.xyz')
  })

  it('refuses patterns and paths that leave cwd, and does not follow symlinks out', async () => {
    await symlink(path.join(base, 'elsewhere'), path.join(cwd, 'out'))
    expect((await call(findFilesTool, { pattern: '../elsewhere/*' })).isError).toBe(true)
    expect((await call(findFilesTool, { pattern: '/etc/*' })).isError).toBe(true)
    expect((await call(findFilesTool, { pattern: '*', path: '../elsewhere' })).isError).toBe(true)
    expect((await call(findFilesTool, { pattern: '**/secret.ts' })).output).toBe(
      'No files match **/secret.ts',
    )
  })

  it(`stops at ${MAX_FOUND_FILES} files and says so`, async () => {
    await mkdir(path.join(cwd, 'many'))
    for (let i = 0; i < MAX_FOUND_FILES + 5; i++) await writeFile(path.join(cwd, 'many', `f${i}.txt`), '')
    const lines = String((await call(findFilesTool, { pattern: 'many/*.txt' })).output).split('\n')
    expect(lines).toHaveLength(MAX_FOUND_FILES + 1)
    expect(lines.at(-1)).toBe(`[stopped at ${MAX_FOUND_FILES} files; narrow the pattern]`)
  })
})

describe('search_text', () => {
  it('finds regex matches as file:line: text, skipping .git, ignored and binary files', async () => {
    await writeFile(path.join(cwd, 'image.bin'), Buffer.from([84, 79, 68, 79, 0, 1]))
    expect((await call(searchTextTool, { pattern: 'TODO' })).output).toBe(
      [
        'README.md:2: TODO docs',
        'src/app.ts:2: // TODO: more',
        '[1 binary or oversized files not searched]',
      ].join('\n'),
    )
    expect((await call(searchTextTool, { pattern: 'todo', ignoreCase: true, glob: 'src/**' })).output).toBe(
      'src/app.ts:2: // TODO: more\nsrc/lib/util.ts:1: export function todo() {}',
    )
    expect((await call(searchTextTool, { pattern: '\\d+$', path: 'src/app.ts' })).output).toBe(
      'src/app.ts:1: export const answer = 42',
    )
  })

  it('caps the results and the line length, and says so', async () => {
    await writeFile(
      path.join(cwd, 'long.txt'),
      `${'x'.repeat(MAX_RESULT_LINE + 50)}\n${'match\n'.repeat(20)}`,
    )
    const capped = String((await call(searchTextTool, { pattern: 'match', maxResults: 3 })).output).split(
      '\n',
    )
    expect(capped).toEqual([
      'long.txt:2: match',
      'long.txt:3: match',
      'long.txt:4: match',
      '[stopped at 3 matches; narrow the search or raise maxResults]',
    ])
    const long = String((await call(searchTextTool, { pattern: '^x+$' })).output)
    expect(long).toBe(`long.txt:1: ${'x'.repeat(MAX_RESULT_LINE)}…`)
  })

  it('refuses a bad regular expression and paths outside cwd', async () => {
    expect(await call(searchTextTool, { pattern: '(' })).toMatchObject({ isError: true })
    expect(String((await call(searchTextTool, { pattern: '(' })).output)).toMatch(
      /^invalid regular expression/,
    )
    expect((await call(searchTextTool, { pattern: 'TODO', path: '../elsewhere' })).isError).toBe(true)
    await symlink(path.join(base, 'elsewhere'), path.join(cwd, 'out'))
    expect((await call(searchTextTool, { pattern: 'secret' })).output).toBe('No matches for /secret/')
  })
})
