import { readdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type BenchRow, printTable } from './harness.js'

/**
 * Runs every `*.bench.js` suite beside this file (or only those named on the command line) and
 * prints one table. Each suite measures its rows with their baselines in this same process.
 * A suite module exports `suite: { name, run(): Promise<BenchRow[]> }`.
 */
interface Suite {
  readonly name: string
  readonly run: () => Promise<BenchRow[]>
}

const here = dirname(fileURLToPath(import.meta.url))
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .sort()
const only = process.argv.slice(2)
const rows: BenchRow[] = []
for (const file of files) {
  const { suite } = (await import(pathToFileURL(`${here}/${file}`).href)) as { suite: Suite }
  if (only.length > 0 && !only.includes(suite.name)) continue
  process.stderr.write(`bench: ${suite.name}...\n`)
  rows.push(...(await suite.run()))
}
console.log(
  `node ${process.version}, ${new Date().toISOString()}; medians of repeated runs, ratio = ours / baseline`,
)
printTable(rows)
