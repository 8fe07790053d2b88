import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { searchTextTool } from '../src/agent/tools/search/search-text.js'
import { type BenchRow, timeMedian } from './harness.js'

/**
 * `search_text` (issue 28: 7 calls over a 100,000-file tree took 24.7 s) next to ripgrep run
 * directly on the same tree and pattern, in the same run. The tree is generated in a temp dir:
 * 100,000 entries by default (`DSH_BENCH_SEARCH_FILES` files in directories of 200, so the walk's
 * 100,000-entry bound is not what ends it), small source-like files with a few matches in all.
 * Skipped (no rows) when `rg` is not on PATH.
 */

const run = promisify(execFile)
const FILES = Number(process.env.DSH_BENCH_SEARCH_FILES ?? 99_500)
const PER_DIR = 200
const RUNS = 5
const RG = ['/usr/bin/rg', '/usr/local/bin/rg'].find((p) => existsSync(p)) ?? 'rg'

function generate(root: string): void {
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${Math.floor(i / PER_DIR)}`)
    if (i % PER_DIR === 0) mkdirSync(dir)
    const lines = [
      `import { helper${i % 97} } from './helper${i % 97}'`,
      `export function compute${i}(value: number): number {`,
      `  const scaled = helper${i % 97}(value) * ${i % 13}`,
      i % 2000 === 7 ? '  // NEEDLE_MARKER: revisit this' : '  // ordinary comment about scaling',
      `  return scaled + ${i}`,
      '}',
      '',
    ]
    writeFileSync(join(dir, `module${i}.ts`), lines.join('\n'))
  }
}

async function ours(root: string, pattern: string): Promise<number> {
  const result = await searchTextTool.run(
    { pattern, maxResults: 1000 },
    {
      sessionId: 'bench',
      cwd: root,
      callId: 'c',
      turn: 1,
      client: {},
      signal: new AbortController().signal,
      progress: () => {},
    },
  )
  return String(result.output).split('\n').length
}

async function ripgrep(root: string, pattern: string): Promise<number> {
  const { stdout } = await run(RG, ['-n', '--no-heading', '--', pattern, '.'], {
    cwd: root,
    maxBuffer: 1 << 26,
  }).catch((error: { code?: number; stdout?: string }) => {
    if (error.code === 1) return { stdout: '' }
    throw error
  })
  return stdout.split('\n').filter(Boolean).length
}

export const suite = {
  name: 'search',
  async run(): Promise<BenchRow[]> {
    const available = await run(RG, ['--version']).then(
      () => true,
      () => false,
    )
    if (!available) {
      process.stderr.write('bench search: rg not found, skipped\n')
      return []
    }
    const root = mkdtempSync(join(tmpdir(), 'dsh-bench-search-'))
    try {
      generate(root)
      const rows: BenchRow[] = []
      for (const [label, pattern] of [
        ['literal', 'NEEDLE_MARKER'],
        ['regex', 'compute\\d+317\\(value'],
        ['^(.+)+# (hostile)', '^(.+)+#'],
      ] as const) {
        const found = [await ours(root, pattern), await ripgrep(root, pattern)]
        rows.push({
          group: 'search',
          name: `search_text ${label}, ${FILES} files`,
          ours: await timeMedian(() => ours(root, pattern), RUNS),
          baselineName: 'rg run directly',
          baseline: await timeMedian(() => ripgrep(root, pattern), RUNS),
          unit: 'ms',
          better: 'lower',
          note: `${found[0]} and ${found[1]} lines of output`,
        })
      }
      return rows
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  },
}
