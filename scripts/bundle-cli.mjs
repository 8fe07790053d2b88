import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { rolldown } from 'rolldown'
import { warmCodeCache } from './warm-code-cache.mjs'

/**
 * Bundles the `dsh-acp` executable as CommonJS: `dist/cli.cjs` (src/bin.ts) and its chunks in
 * `dist/cli-chunks/`, one per part that loads apart (the start path, the server, each subcommand,
 * the MCP client, PostgreSQL, the tokenizer...). CommonJS because Node 20 loads and starts it
 * faster than the same code as ES modules (no module jobs, no loader hooks), and because the V8
 * code cache of src/process/early-start/code-cache.ts works through the CommonJS loader. rolldown
 * splits CommonJS output, which esbuild does not. tsc's ES module build of the library stays in
 * dist/ (`dist/index.js`); its copies of the two entries are removed, the bundle being the CLI.
 * Then the warm-up run writes the code cache (scripts/warm-code-cache.mjs).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
for (const stale of ['cli-chunks', 'code-cache']) rmSync(join(dist, stale), { recursive: true, force: true })
for (const name of ['cli', 'bin']) {
  for (const suffix of ['.js', '.js.map', '.d.ts', '.d.ts.map'])
    rmSync(join(dist, `${name}${suffix}`), { force: true })
}

/**
 * The modules an entry reaches by static imports, put in one chunk (each chunk more is a file to
 * read and a module to set up): src/cli.ts's are what every start loads before the `initialize`
 * answer (`start`); the early load's are what a `session/load` sent right after it loads before
 * its first updates (`early`, src/process/early-start/early-load.ts).
 */
const startModules = new Set()
const earlyModules = new Set()
function staticClosure(context, entry, into, skip) {
  const queue = [entry]
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (into.has(id) || skip.has(id)) continue
    into.add(id)
    queue.push(...(context.getModuleInfo(id)?.importedIds ?? []))
  }
}
const startPath = {
  name: 'start-path',
  buildEnd() {
    staticClosure(this, join(root, 'src', 'cli.ts'), startModules, new Set())
    staticClosure(
      this,
      join(root, 'src', 'process', 'early-start', 'early-load.ts'),
      earlyModules,
      startModules,
    )
  },
}

const bundle = await rolldown({
  cwd: root,
  input: { cli: 'src/bin.ts' },
  platform: 'node',
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  plugins: [startPath],
  logLevel: 'warn',
})
await bundle.write({
  dir: dist,
  format: 'cjs',
  entryFileNames: '[name].cjs',
  chunkFileNames: 'cli-chunks/[name]-[hash].cjs',
  // `import('node:child_process')` as a `require`: an `import()` would start the ES module loader.
  dynamicImportInCjs: false,
  codeSplitting: {
    groups: [
      { name: 'start', test: (id) => startModules.has(id) },
      { name: 'early', test: (id) => earlyModules.has(id) },
    ],
  },
  sourcemap: true,
})
await bundle.close()
await warmCodeCache(join(dist, 'cli.cjs'))
