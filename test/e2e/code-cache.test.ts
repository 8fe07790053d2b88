import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

/**
 * The code cache of the bundled chunks (src/process/early-start/code-cache.ts), in a node of its
 * own (it replaces a step of Node's CommonJS loader): what a chunk computes is the same without a
 * cache, with the cache a warm-up wrote, and with a cache that is not V8's; files outside the chunk
 * folder are left to Node. And the build wrote the cache of the executable's start.
 */
const codeCache = pathToFileURL(
  resolve(import.meta.dirname, '../../dist/process/early-start/code-cache.js'),
).href
const dist = resolve(import.meta.dirname, '../../dist')

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-code-cache-'))
  mkdirSync(join(dir, 'chunks'))
  writeFileSync(
    join(dir, 'chunks', 'main-a1.cjs'),
    "#!/usr/bin/env node\nconst { double } = require('./math-b2.cjs')\nconst outside = require('../outside.cjs')\nmodule.exports = { value: double(21) + outside.one, file: __filename }\n",
  )
  writeFileSync(join(dir, 'chunks', 'math-b2.cjs'), 'exports.double = (n) => n * 2\n')
  writeFileSync(join(dir, 'outside.cjs'), 'exports.one = 1\n')
  writeFileSync(
    join(dir, 'run.mjs'),
    `import { createRequire } from 'node:module'
import { useCodeCache } from ${JSON.stringify(codeCache)}
const use = useCodeCache({ chunks: ${JSON.stringify(join(dir, 'chunks'))}, cache: ${JSON.stringify(join(dir, 'cache'))}, write: process.env.WRITE === '1' })
const loaded = createRequire(import.meta.url)('./chunks/main-a1.cjs')
process.stdout.write(JSON.stringify({ ...loaded, use }))
`,
  )
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

interface Ran {
  readonly value: number
  readonly file: string
  readonly use: { readonly fromCache: number; readonly refused: number; readonly uncached: number }
}

function run(write: boolean): Ran {
  const child = spawnSync(process.execPath, [join(dir, 'run.mjs')], {
    env: { ...process.env, WRITE: write ? '1' : '0' },
    encoding: 'utf8',
  })
  expect(child.stderr).toBe('')
  expect(child.status).toBe(0)
  return JSON.parse(child.stdout)
}

describe('the code cache of the bundled chunks', () => {
  it('runs a chunk the same without a cache, with the one a warm-up wrote, and with a foreign one', () => {
    const expected = { value: 43, file: join(dir, 'chunks', 'main-a1.cjs') }
    const uses = (fromCache: number, refused: number, uncached: number) => ({
      ...expected,
      use: { fromCache, refused, uncached },
    })
    expect(run(false)).toEqual(uses(0, 0, 2))
    expect(existsSync(join(dir, 'cache'))).toBe(false)
    expect(run(true)).toEqual(uses(0, 0, 2))
    expect(readdirSync(join(dir, 'cache')).sort()).toEqual(['main-a1.cjs.v8', 'math-b2.cjs.v8'])
    expect(run(false)).toEqual(uses(2, 0, 0))
    writeFileSync(join(dir, 'cache', 'main-a1.cjs.v8'), 'not a code cache')
    expect(run(false)).toEqual(uses(1, 1, 0))
  })

  it('was written by the build for what a start loads', () => {
    const caches = readdirSync(join(dist, 'code-cache'))
    expect(caches).toEqual([`${process.versions.v8}-${process.arch}`])
    const chunks = readdirSync(join(dist, 'cli-chunks')).filter((name) => name.endsWith('.cjs'))
    const cached = readdirSync(join(dist, 'code-cache', caches[0] ?? '')).map((name) =>
      name.replace(/\.v8$/, ''),
    )
    expect(cached.filter((name) => !chunks.includes(name))).toEqual([])
    // The start, the early load, the server, the store, the configuration file's validators.
    for (const chunk of ['start-', 'early-', 'serve-', 'persistence-', 'file-validators'])
      expect(
        cached.some((name) => name.startsWith(chunk)),
        chunk,
      ).toBe(true)
  })
})
