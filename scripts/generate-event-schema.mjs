// Generates schemas/events.schema.json and the `$defs.event` of schemas/session-file.schema.json
// from the event definitions in src/session/log/event-definitions.ts (bundled here with esbuild,
// so no build is needed first). test/schemas.test.ts fails when a committed schema is stale.
// Usage: node scripts/generate-event-schema.mjs [--check]   (--check: fail if a file would change)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')

const bundle = await build({
  entryPoints: [join(ROOT, 'src/session/log/events-schema.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
  logLevel: 'error',
})
const { eventsSchema, sessionFileEventSchema } = await import(
  `data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`
)

function oneLine(value) {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const entries = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`)
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`
}

/** JSON with each object or array on one line when it fits there (then laid out by Biome). */
function compact(value, indent = '') {
  const flat = oneLine(value)
  if (typeof value !== 'object' || value === null || indent.length + flat.length <= 100) return flat
  const inner = `${indent}  `
  const items = Array.isArray(value)
    ? value.map((item) => inner + compact(item, inner))
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${compact(item, inner)}`)
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
  return `${open}\n${items.join(',\n')}\n${indent}${close}`
}

/** Biome's JSON layout (the files are formatted by `biome format` after writing). */
function biomeFormat(file, text) {
  return execFileSync(join(ROOT, 'node_modules/.bin/biome'), ['format', `--stdin-file-path=${file}`], {
    input: text,
    encoding: 'utf8',
  })
}

const sessionFilePath = join(ROOT, 'schemas/session-file.schema.json')
const sessionFile = JSON.parse(readFileSync(sessionFilePath, 'utf8'))
sessionFile.$defs.event = sessionFileEventSchema()

const outputs = [
  [join(ROOT, 'schemas/events.schema.json'), eventsSchema()],
  [sessionFilePath, sessionFile],
]
let stale = false
for (const [file, schema] of outputs) {
  const text = biomeFormat(file, `${compact(schema)}\n`)
  if (readFileSync(file, 'utf8') === text) continue
  stale = true
  if (check) console.error(`stale: ${file} (run npm run generate)`)
  else writeFileSync(file, text)
}
if (check && stale) process.exit(1)
