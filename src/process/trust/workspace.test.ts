import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { trustFile } from './trust-store.js'
import { findProjectFile, workspaceOf } from './workspace.js'
import { createWorkspaceTrust } from './workspace-trust.js'

function scene() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-acp-ws-')))
  const project = (dir: string) => {
    mkdirSync(join(dir, '.dsh-acp'), { recursive: true })
    writeFileSync(join(dir, '.dsh-acp', 'config.json'), '{}')
    return join(dir, '.dsh-acp', 'config.json')
  }
  return { home, project }
}

describe('where project files are looked for', () => {
  it('from cwd up to the repository root, the closest first; cwd alone outside a repository', () => {
    const { home, project } = scene()
    const root = join(home, 'repo')
    const deep = join(root, 'a', 'b')
    mkdirSync(deep, { recursive: true })
    mkdirSync(join(root, '.git'))
    const inRoot = project(root)
    expect(workspaceOf(deep, home)).toEqual({
      cwd: deep,
      repoRoot: root,
      projectDirs: [deep, join(root, 'a'), root],
    })
    expect(findProjectFile(workspaceOf(deep, home)).found?.file).toBe(inRoot)
    const loose = join(home, 'loose', 'inner')
    mkdirSync(loose, { recursive: true })
    project(join(home, 'loose'))
    expect(workspaceOf(loose, home).projectDirs).toEqual([loose])
    expect(findProjectFile(workspaceOf(loose, home)).found).toBeUndefined()
  })

  it('never in the home directory, even when it holds .git', () => {
    const { home, project } = scene()
    mkdirSync(join(home, '.git'))
    project(home)
    const cwd = join(home, 'work')
    mkdirSync(cwd)
    expect(workspaceOf(cwd, home)).toEqual({ cwd, projectDirs: [cwd] })
    expect(workspaceOf(home, home).projectDirs).toEqual([])
  })

  it('refuses a file linked out of its directory and one in a directory everybody can write', () => {
    const { home } = scene()
    const root = join(home, 'repo')
    mkdirSync(join(root, '.dsh-acp'), { recursive: true })
    mkdirSync(join(root, '.git'))
    writeFileSync(join(home, 'outside.json'), '{}')
    symlinkSync(join(home, 'outside.json'), join(root, '.dsh-acp', 'config.json'))
    expect(findProjectFile(workspaceOf(root, home)).problems[0]?.message).toContain(
      'symbolic link leading out',
    )
    const open = join(home, 'open')
    mkdirSync(join(open, '.dsh-acp'), { recursive: true })
    writeFileSync(join(open, '.dsh-acp', 'config.json'), '{}')
    chmodSync(open, 0o777)
    expect(findProjectFile(workspaceOf(open, home)).problems[0]?.message).toContain('every user')
  })
})

describe('trust decisions', () => {
  it('trust reaches up to the highest trusted folder below a decline: a trusted cwd does not trust the files above it', () => {
    const { home, project } = scene()
    const root = join(home, 'repo')
    const pkg = join(root, 'pkg')
    mkdirSync(join(root, '.git'), { recursive: true })
    mkdirSync(pkg)
    const rootFile = project(root)
    const trust = createWorkspaceTrust(trustFile({ XDG_CONFIG_HOME: join(home, 'cfg') }, home), home)
    expect(trust.access(pkg)).toEqual({ ignored: rootFile, problems: [] })
    expect(trust.apply(pkg, 'trust_cwd').details.ignoredPaths).toEqual([rootFile])
    expect(trust.apply(pkg, 'trust_repo').status).toBe('trusted')
    expect(trust.access(pkg)).toEqual({ file: rootFile, problems: [] })
    trust.apply(pkg, 'decline')
    expect(trust.report(pkg)?.status).toBe('untrusted')
    expect(trust.report(root)?.status).toBe('trusted')
    expect(trust.apply(pkg, 'trust_session', 's1').status).toBe('session')
    expect(trust.report(pkg, 's2')?.status).toBe('untrusted')
    expect(() => trust.apply(home, 'trust_repo')).toThrow('not available')
  })
})
