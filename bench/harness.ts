/** One row of the benchmark table: our operation next to its baseline, measured in the same run. */
export interface BenchRow {
  readonly group: string
  readonly name: string
  /** Median of our operation, in the unit. */
  readonly ours: number
  readonly baselineName: string
  readonly baseline: number
  readonly unit: 'ms' | 'µs' | 'ops/s' | 'MB' | 'bytes' | 'tokens'
  /** How the ratio is read: `lower` when ours/baseline should be small, `higher` when large. */
  readonly better: 'lower' | 'higher'
  /** Target ratio ours/baseline, e.g. 1.0 ("at most 1.0x") or 0.7 ("at least 0.7x"). */
  readonly target?: number
  readonly note?: string
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Runs `fn` `runs` times after `warmup` runs and returns the median duration in ms. */
export async function timeMedian(fn: () => unknown, runs = 7, warmup = 1): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return median(times)
}

/** Runs the garbage collector when node runs with --expose-gc. */
export function collectGarbage(): void {
  ;(globalThis as { gc?: () => void }).gc?.()
}

function format(value: number): string {
  if (value >= 100) return value.toFixed(0)
  if (value >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

export function verdict(row: BenchRow): string {
  if (row.target === undefined) return ''
  const ratio = row.ours / row.baseline
  const ok = row.better === 'lower' ? ratio <= row.target : ratio >= row.target
  return `${ok ? 'meets' : 'MISSES'} ${row.better === 'lower' ? '<=' : '>='}${row.target}x`
}

/** Prints rows as a Markdown table on stdout. */
export function printTable(rows: readonly BenchRow[]): void {
  const header = ['group', 'operation', 'ours', 'baseline', 'baseline (same run)', 'ratio', 'target', 'note']
  const lines = rows.map((r) => [
    r.group,
    r.name,
    `${format(r.ours)} ${r.unit}`,
    r.baselineName,
    `${format(r.baseline)} ${r.unit}`,
    `${(r.ours / r.baseline).toFixed(2)}x`,
    verdict(r),
    r.note ?? '',
  ])
  console.log(`| ${header.join(' | ')} |`)
  console.log(`|${header.map(() => '---').join('|')}|`)
  for (const line of lines) console.log(`| ${line.join(' | ')} |`)
}
