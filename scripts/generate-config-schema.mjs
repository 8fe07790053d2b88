// Generates schemas/config.schema.json from the command-line options table
// (src/process/cli-options.ts, config-schema.ts), and the configuration files' schemas
// schemas/config-file.schema.json and schemas/project-config.schema.json
// (src/process/config/file-schema.ts), formatted as Biome formats them.
// Usage: node scripts/generate-config-schema.mjs [--check]   (--check: fail if the file would change)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Each generated file, the module that makes it and the function's name. */
const OUTPUTS = [
  { out: 'schemas/config.schema.json', entry: 'src/process/config-schema.ts', make: 'configSchema' },
  {
    out: 'schemas/config-file.schema.json',
    entry: 'src/process/config/file-schema.ts',
    make: 'configFileSchema',
  },
  {
    out: 'schemas/project-config.schema.json',
    entry: 'src/process/config/file-schema.ts',
    make: 'projectFileSchema',
  },
]

/** The schema `make()` of the TypeScript module `entry` gives, bundled in memory (no build of dist/ needed). */
async function generated({ entry, make }) {
  const bundle = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
  })
  const code = bundle.outputFiles[0].text
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
  return module[make]()
}

/** The schema's text as `biome format` writes it. */
function formatted(schema, out) {
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${out}`], {
    cwd: root,
    input: `${JSON.stringify(schema, null, 2)}\n`,
    encoding: 'utf8',
  })
}

let stale = false
for (const output of OUTPUTS) {
  const text = formatted(await generated(output), output.out)
  let old = ''
  try {
    old = readFileSync(join(root, output.out), 'utf8')
  } catch {}
  if (process.argv.includes('--check')) {
    if (old !== text) {
      console.error(`${output.out} is out of date: run npm run generate:config`)
      stale = true
    }
  } else if (old !== text) {
    writeFileSync(join(root, output.out), text)
  }
}
if (stale) process.exit(1)
