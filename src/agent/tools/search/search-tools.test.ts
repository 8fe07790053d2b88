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

/** 44-character names and lines: what the hostile patterns froze the agent on. */
const ORDINARY_44 = 'abcdefghij_klmnopqrst-uvwxyz0123456789ABCDEF'

describe('hostile patterns finish (the test timeout is the bound)', () => {
  beforeEach(async () => {
    await mkdir(path.join(cwd, 'names'))
    const lines = Array.from({ length: 200 }, () => ORDINARY_44).join('\n')
    for (let i = 0; i < 20; i++) {
      await writeFile(
        path.join(cwd, 'names', `${ORDINARY_44.slice(0, 40)}${String(i).padStart(4, '0')}`),
        lines,
      )
    }
  })

  it('search_text ^(.+)+# on 44-character lines', async () => {
    expect(ORDINARY_44).toHaveLength(44)
    expect((await call(searchTextTool, { pattern: '^(.+)+#', path: 'names' })).output).toBe(
      'No matches for /^(.+)+#/',
    )
    const found = String((await call(searchTextTool, { pattern: '^(.+)+F$', path: 'names' })).output)
    expect(found.split('\n')[0]).toBe(`names/${ORDINARY_44.slice(0, 40)}0000:1: ${ORDINARY_44}`)
  })

  it('find_files and the glob of search_text with **/*?*?*?*?*?*?*?*?*?*?*?*?# on 44-character names', async () => {
    const hostile = '**/*?*?*?*?*?*?*?*?*?*?*?*?#'
    expect((await call(findFilesTool, { pattern: hostile })).output).toBe(`No files match ${hostile}`)
    expect((await call(searchTextTool, { pattern: 'a', glob: hostile })).output).toBe('No matches for /a/')
    const near = '**/*?*?*?*?*?*?*?*?*?*?*?*?9'
    expect(String((await call(findFilesTool, { pattern: near })).output).split('\n')).toHaveLength(2)
  })

  it('a hostile .gitignore in the workspace', async () => {
    await writeFile(
      path.join(cwd, 'names', '.gitignore'),
      [
        '*?*?*?*?*?*?*?*?*?*?*?*?#',
        '*a*a*a*a*a*a*a*a*a*a*a*a#',
        '**/**/**/**/**/**/**/**/**/**/#',
        '*0001',
      ].join('\n'),
    )
    const found = String((await call(findFilesTool, { pattern: 'names/*' })).output).split('\n')
    expect(found).toHaveLength(20)
    expect(found).not.toContain(`names/${ORDINARY_44.slice(0, 40)}0001`)
  })
})

describe('glob syntax', () => {
  it('matches *, **, ?, [...], [!...], {a,b} and \\-escapes like the documented glob', async () => {
    for (const name of [
      'a.ts',
      'b.md',
      'c.d.ts',
      'x/y/z.ts',
      '[lit].txt',
      'q1.txt',
      'q22.txt',
      'notes.txt',
    ]) {
      await mkdir(path.dirname(path.join(cwd, 'g', name)), { recursive: true })
      await writeFile(path.join(cwd, 'g', name), '')
    }
    const find = async (pattern: string) => String((await call(findFilesTool, { pattern, path: 'g' })).output)
    expect(await find('g/*.ts')).toBe('g/a.ts\ng/c.d.ts')
    expect(await find('g/**/*.ts')).toBe('g/a.ts\ng/c.d.ts\ng/x/y/z.ts')
    expect(await find('**/z.ts')).toBe('g/x/y/z.ts')
    expect(await find('g/q?.txt')).toBe('g/q1.txt')
    expect(await find('g/[ab].*')).toBe('g/a.ts\ng/b.md')
    expect(await find('g/[!abcnq[]*')).toBe('No files match g/[!abcnq[]*')
    expect(await find('g/{a,b}.{ts,md}')).toBe('g/a.ts\ng/b.md')
    expect(await find('g/\\[lit\\].txt')).toBe('g/[lit].txt')
    expect(await find('g/x/**')).toBe('g/x/y/z.ts')
    expect(await find('g/*')).not.toContain('z.ts')
  })

  it('refuses a glob that is malformed or too long, with a clear error', async () => {
    expect(await call(findFilesTool, { pattern: '[z-a]' })).toMatchObject({ isError: true })
    expect(String((await call(findFilesTool, { pattern: '[z-a]' })).output)).toMatch(/^invalid glob/)
    expect(String((await call(findFilesTool, { pattern: '*'.repeat(5000) })).output)).toMatch(/longer than/)
    expect(
      String((await call(findFilesTool, { pattern: `${'{a,'.repeat(40)}b${'}'.repeat(40)}` })).output),
    ).toMatch(/deeper than/)
  })
})

describe('search_text regular expressions (RE2)', () => {
  it('says clearly that backreferences and lookaround are not supported', async () => {
    for (const pattern of ['(a)\\1', '(?<x>a)\\k<x>', 'foo(?=bar)', '(?<!x)y', 'a(?!b)']) {
      const result = await call(searchTextTool, { pattern })
      expect(result.isError, pattern).toBe(true)
      expect(String(result.output), pattern).toMatch(/^invalid regular expression: .* not supported .*RE2/)
    }
  })

  it('accepts JavaScript forms: named groups, \\u escapes, / and ignoreCase', async () => {
    await writeFile(path.join(cwd, 'js.txt'), 'path a/b\nCafé\n')
    expect((await call(searchTextTool, { pattern: '(?<dir>a)/b', path: 'js.txt' })).output).toBe(
      'js.txt:1: path a/b',
    )
    expect(
      (await call(searchTextTool, { pattern: 'caf\\u00e9', ignoreCase: true, path: 'js.txt' })).output,
    ).toBe('js.txt:2: Café')
  })

  it('a line too long for a costly pattern is not searched, and the result says so', async () => {
    await writeFile(path.join(cwd, 'wide.txt'), `${'ab'.repeat(20_000)}\nab\n`)
    expect(
      (await call(searchTextTool, { pattern: '(a|b)*a(a|b){999}$|^ab$', path: 'wide.txt' })).output,
    ).toBe('wide.txt:2: ab\n[1 lines too long for this pattern not searched; simplify the pattern]')
  })

  it('stops with an AbortError when the turn is cancelled while it searches', async () => {
    await writeFile(path.join(cwd, 'slow.txt'), `${'ab'.repeat(8000)}\n`.repeat(40))
    const controller = new AbortController()
    const context = {
      sessionId: 's',
      cwd,
      callId: 'c',
      turn: 1,
      client: {},
      signal: controller.signal,
      progress: () => {},
    }
    const running = searchTextTool.run({ pattern: '(a|b)*a(a|b){1000}$', path: 'slow.txt' }, context)
    setImmediate(() => controller.abort())
    await expect(running).rejects.toMatchObject({ name: 'AbortError' })
  })
})
