import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type FileSystem, nodeFileSystem } from '../fs/file-system.js'
import { StorePaths } from '../store-paths.js'
import { SessionWatches } from './session-watch.js'

const cleanup: Array<() => void> = []
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step()
})

function store(fs: FileSystem = nodeFileSystem) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-watch-'))
  const paths = new StorePaths(dir)
  const warnings: string[] = []
  const watches = new SessionWatches(fs, paths, (message) => warnings.push(message))
  cleanup.push(
    () => watches.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  )
  return { dir, paths, watches, warnings }
}

/** A listener and the promise of its next call. */
function heard() {
  let calls = 0
  let wake: (() => void) | undefined
  const listener = () => {
    calls++
    wake?.()
  }
  const next = (after: number) =>
    new Promise<void>((resolve) => {
      if (calls > after) resolve()
      else wake = resolve
    })
  return { listener, next, count: () => calls }
}

describe('SessionWatches', () => {
  it('reports an append to a watched session file, and a file replaced by a rename', async () => {
    const { paths, watches, warnings } = store()
    writeFileSync(paths.sessionFile('s1'), '{"version":1}\n')
    const one = heard()
    watches.watch('s1', one.listener)
    const before = one.count()
    appendFileSync(paths.sessionFile('s1'), '{"seq":1}\n')
    await one.next(before)
    const replaced = one.count()
    const temp = join(paths.dir, '.s1.1.x.tmp')
    writeFileSync(temp, '{"version":1}\n')
    renameSync(temp, paths.sessionFile('s1'))
    await one.next(replaced)
    expect(warnings).toEqual([])
  })

  it('tells only the session whose file changed, and stops when unwatched', async () => {
    const { paths, watches } = store()
    writeFileSync(paths.sessionFile('a'), 'x\n')
    writeFileSync(paths.sessionFile('b'), 'x\n')
    const a = heard()
    const b = heard()
    const stopA = watches.watch('a', a.listener)
    watches.watch('b', b.listener)
    stopA()
    const seenA = a.count()
    const seenB = b.count()
    appendFileSync(paths.sessionFile('a'), 'y\n')
    appendFileSync(paths.sessionFile('b'), 'y\n')
    await b.next(seenB)
    expect(a.count()).toBe(seenA)
  })

  it('without a directory watch, polls the file', async () => {
    const { watch: _none, ...withoutWatch } = nodeFileSystem
    const { paths, watches } = store(withoutWatch)
    writeFileSync(paths.sessionFile('s1'), 'x\n')
    const one = heard()
    watches.watch('s1', one.listener)
    await one.next(0)
    const before = one.count()
    appendFileSync(paths.sessionFile('s1'), 'y\n')
    await one.next(before)
    expect(one.count()).toBeGreaterThan(before)
  })
})
