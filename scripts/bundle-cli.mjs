import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/**
 * Replaces tsc's `dist/cli.js` with one bundled file (plus chunks that only subcommands or optional
 * providers import), so starting the server reads and compiles one file instead of resolving ~150
 * modules. tsc still type-checks and emits the library (`dist/index.js` and its types). Bundled
 * CommonJS dependencies call `require`, which an ES module lacks: the banner provides it.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const chunks = 'cli-chunks'
rmSync(join(root, 'dist', chunks), { recursive: true, force: true })
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  chunkNames: `${chunks}/[name]-[hash]`,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  logLevel: 'warning',
})
