import { type BenchRow, printTable } from './harness.js'

/** Each suite measures its rows with their baselines in this same process and run. */
type Suite = { readonly name: string; readonly run: () => Promise<BenchRow[]> }

const suites: Suite[] = []

const only = process.argv.slice(2)
const rows: BenchRow[] = []
for (const suite of suites) {
  if (only.length > 0 && !only.includes(suite.name)) continue
  process.stderr.write(`bench: ${suite.name}...\n`)
  rows.push(...(await suite.run()))
}
console.log(
  `node ${process.version}, ${new Date().toISOString()}; medians of repeated runs, ratios = ours / baseline`,
)
printTable(rows)
