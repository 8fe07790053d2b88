// Generates schemas/config.schema.json from the command-line options table
// (src/process/cli-options.ts, config-schema.ts), formatted as Biome formats it.
// Usage: node scripts/generate-config-schema.mjs [--check]   (--check: fail if the file would change)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = 'schemas/config.schema.json'

/** `configSchema()` of the TypeScript sources, bundled in memory (no build of dist/ needed). */
async function configSchema() {
  const bundle = await build({
    absWorkingDir: root,
    entryPoints: ['src/process/config-schema.ts'],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
  })
  const code = bundle.outputFiles[0].text
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
  return module.configSchema()
}

/** The schema's text as `biome format` writes it. */
function formatted(schema) {
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${OUT}`], {
    cwd: root,
    input: `${JSON.stringify(schema, null, 2)}\n`,
    encoding: 'utf8',
  })
}

const text = formatted(await configSchema())
let old = ''
try {
  old = readFileSync(join(root, OUT), 'utf8')
} catch {}
if (process.argv.includes('--check')) {
  if (old !== text) {
    console.error(`${OUT} is out of date: run npm run generate:config`)
    process.exit(1)
  }
} else if (old !== text) {
  writeFileSync(join(root, OUT), text)
}
