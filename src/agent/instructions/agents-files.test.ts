import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readInstructionFiles } from './agents-files.js'
import { findGitRepository } from './git-repository.js'
import { collectPromptInputs } from './prompt-inputs.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dsh-agents-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** Writes `text` at `path` (relative to the temp root), making its directories. */
function put(path: string, text: string): string {
  const file = join(root, path)
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, text)
  return file
}

describe('readInstructionFiles', () => {
  it('reads the user file, then the repository root down to cwd, the closest last', async () => {
    put('repo/.git/HEAD', 'ref: refs/heads/main\n')
    put('repo/AGENTS.md', 'root rules')
    put('repo/pkg/AGENTS.md', 'pkg rules')
    put('repo/pkg/app/AGENTS.md', 'app rules')
    put('repo/pkg/app/deeper/AGENTS.md', 'below cwd: not read')
    put('config/dsh-acp/AGENTS.md', 'user rules')
    put('AGENTS.md', 'above the repository: not read')
    const cwd = join(root, 'repo/pkg/app')
    const files = await readInstructionFiles({
      cwd,
      repositoryRoot: join(root, 'repo'),
      directories: [],
      userConfigDir: join(root, 'config/dsh-acp'),
    })
    expect(files.map((f) => [f.scope, f.text])).toEqual([
      ['user', 'user rules'],
      ['project', 'root rules'],
      ['project', 'pkg rules'],
      ['project', 'app rules'],
    ])
    expect(files[3]?.path).toBe(join(cwd, 'AGENTS.md'))
  })

  it('outside a repository reads only the AGENTS.md of cwd itself', async () => {
    put('AGENTS.md', 'parent')
    put('work/AGENTS.md', 'cwd')
    const files = await readInstructionFiles({ cwd: join(root, 'work'), directories: [] })
    expect(files.map((f) => f.text)).toEqual(['cwd'])
  })

  it("reads each additional directory's own file (not its parents'), before the project's", async () => {
    put('extra/AGENTS.md', 'extra rules')
    put('extra/sub/AGENTS.md', 'not an additional directory')
    put('work/AGENTS.md', 'cwd rules')
    const files = await readInstructionFiles({
      cwd: join(root, 'work'),
      directories: [join(root, 'extra'), join(root, 'missing')],
    })
    expect(files.map((f) => [f.scope, f.text])).toEqual([
      ['directory', 'extra rules'],
      ['project', 'cwd rules'],
    ])
  })

  it('reads a file reached twice once, at its first place; skips a directory named AGENTS.md', async () => {
    put('work/AGENTS.md', 'cwd rules')
    mkdirSync(join(root, 'other/AGENTS.md'), { recursive: true })
    symlinkSync(join(root, 'work'), join(root, 'alias'))
    const files = await readInstructionFiles({
      cwd: join(root, 'work'),
      directories: [join(root, 'alias'), join(root, 'other')],
    })
    expect(files.map((f) => [f.scope, f.text])).toEqual([['directory', 'cwd rules']])
  })

  it("never follows a project's AGENTS.md linked out of its repository", async () => {
    put('repo/.git/HEAD', 'ref: refs/heads/main\n')
    put('secret/id_rsa', 'PRIVATE KEY')
    put('repo/docs/AGENTS.md', 'shared rules')
    symlinkSync(join(root, 'secret/id_rsa'), join(root, 'repo/AGENTS.md'))
    mkdirSync(join(root, 'repo/pkg'))
    symlinkSync(join(root, 'repo/docs/AGENTS.md'), join(root, 'repo/pkg/AGENTS.md'))
    const files = await readInstructionFiles({
      cwd: join(root, 'repo/pkg'),
      repositoryRoot: join(root, 'repo'),
      directories: [],
    })
    expect(files.map((f) => f.text)).toEqual(['shared rules'])
  })

  it('spends the size limit from the closest file outwards and marks what it cut', async () => {
    put('repo/.git/HEAD', 'ref: refs/heads/main\n')
    put('repo/AGENTS.md', 'r'.repeat(50))
    put('repo/pkg/AGENTS.md', 'p'.repeat(30))
    put('config/AGENTS.md', 'user')
    const files = await readInstructionFiles({
      cwd: join(root, 'repo/pkg'),
      repositoryRoot: join(root, 'repo'),
      directories: [],
      userConfigDir: join(root, 'config'),
      maxBytes: 40,
    })
    expect(files.map((f) => [f.text, f.bytes, f.cut])).toEqual([
      ['', 4, true],
      ['r'.repeat(10), 50, true],
      ['p'.repeat(30), 30, false],
    ])
  })

  it('skips a FIFO named AGENTS.md without waiting for a writer', async () => {
    mkdirSync(join(root, 'work'))
    execFileSync('mkfifo', [join(root, 'work', 'AGENTS.md')])
    put('config/AGENTS.md', 'user')
    const files = await readInstructionFiles({
      cwd: join(root, 'work'),
      directories: [],
      userConfigDir: join(root, 'config'),
    })
    expect(files.map((f) => f.text)).toEqual(['user'])
  })

  it('cuts at a character boundary, never inside a UTF-8 sequence', async () => {
    put('work/AGENTS.md', `ab${'€'.repeat(3)}`)
    const files = await readInstructionFiles({ cwd: join(root, 'work'), directories: [], maxBytes: 6 })
    expect(files[0]).toMatchObject({ text: 'ab€', bytes: 11, cut: true })
  })
})

describe('findGitRepository', () => {
  it('finds the root and branch above a directory, a detached HEAD, and a worktree gitdir file', async () => {
    put('repo/.git/HEAD', 'ref: refs/heads/feature/x\n')
    mkdirSync(join(root, 'repo/a/b'), { recursive: true })
    expect(await findGitRepository(join(root, 'repo/a/b'))).toEqual({
      root: join(root, 'repo'),
      branch: 'feature/x',
    })
    put('detached/.git/HEAD', `${'ab'.repeat(20)}\n`)
    expect((await findGitRepository(join(root, 'detached')))?.branch).toBe('detached at abababababab')
    put('gitdirs/wt/HEAD', 'ref: refs/heads/topic\n')
    put('wt/.git', `gitdir: ${join(root, 'gitdirs/wt')}\n`)
    expect(await findGitRepository(join(root, 'wt'))).toEqual({ root: join(root, 'wt'), branch: 'topic' })
  })
})

describe('collectPromptInputs', () => {
  it('takes the user config directory from XDG_CONFIG_HOME and the shell from SHELL', async () => {
    put('xdg/dsh-acp/AGENTS.md', 'mine')
    mkdirSync(join(root, 'work'))
    const inputs = await collectPromptInputs(join(root, 'work'), [], {
      XDG_CONFIG_HOME: join(root, 'xdg'),
      SHELL: '/bin/zsh',
    })
    expect(inputs).toMatchObject({ shell: '/bin/zsh', cwd: join(root, 'work'), directories: [] })
    expect(inputs.files.map((f) => [f.scope, f.text])).toEqual([['user', 'mine']])
  })

  it('falls back to ~/.config/dsh-acp without XDG_CONFIG_HOME', async () => {
    put('home/.config/dsh-acp/AGENTS.md', 'from home')
    mkdirSync(join(root, 'work'))
    const inputs = await collectPromptInputs(join(root, 'work'), [], { HOME: join(root, 'home') })
    expect(inputs.files.map((f) => f.text)).toEqual(['from home'])
  })
})
