import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// docs/architecture.md is the map a newcomer reads: it must name every folder of src/, name only
// folders and exported types that exist, and the README and docs/ must link only to files that exist.

const root = join(import.meta.dirname, '..')
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8')

function folders(dir: string): string[] {
  const below = readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => folders(`${dir}/${entry.name}`))
  return [dir, ...below]
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : []
  })
}

describe('docs/architecture.md', () => {
  it('names every folder under src/', () => {
    const unnamed = folders('src').filter((folder) => !architecture.includes(`\`${folder}/\``))
    expect(unnamed).toEqual([])
  })

  it('names only folders that exist', () => {
    const named = [...architecture.matchAll(/`(src(?:\/[\w.-]+)*)\/`/g)].map((match) => match[1] ?? '')
    expect(named.length).toBeGreaterThan(40)
    expect(named.filter((folder) => !existsSync(join(root, folder)))).toEqual([])
  })

  it('names only types and functions that src/ exports', () => {
    const exported = new Set(
      sourceFiles('src').flatMap((file) =>
        [
          ...readFileSync(join(root, file), 'utf8').matchAll(
            /export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum) (\w+)/g,
          ),
        ].map((match) => match[1]),
      ),
    )
    const named = [...architecture.matchAll(/`([A-Za-z]+)`/g)]
      .map((match) => match[1] ?? '')
      .filter((name) => /^[A-Z][a-z]|^[a-z]+[A-Z]/.test(name))
    expect(named.length).toBeGreaterThan(5)
    expect(named.filter((name) => !exported.has(name))).toEqual([])
  })
})

describe('README.md and docs/', () => {
  const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)]

  it('link only to files that exist', () => {
    const broken = pages.flatMap((page) => {
      const text = readFileSync(join(root, page), 'utf8')
      return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => (match[1] ?? '').split('#')[0] ?? '')
        .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
        .filter((target) => !existsSync(join(root, dirname(page), target)))
        .map((target) => `${page} → ${relative(root, join(root, dirname(page), target))}`)
    })
    expect(broken).toEqual([])
  })
})
