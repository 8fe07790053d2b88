import { resolve } from 'node:path'
import { build } from 'esbuild'
import { expect, it } from 'vitest'

/**
 * cli.ts answers `initialize` before the server is built and loads the rest after the answer
 * (`import('./process/serve.js')`): what it imports statically is what every start pays before
 * the answer (issue 35 #11). Measured on the imports that run (esbuild's bundle graph: type-only
 * imports are erased, dynamic ones start other chunks), none of these may be among them.
 */
const SERVER_MODULES = [
  'src/app.ts',
  'src/agent/index.ts',
  'src/acp/server.ts',
  'src/acp/plugin.ts',
  'src/session/store/store.ts',
  'src/process/serve.ts',
]

/** The src/ and node_modules paths cli.ts reaches through static `import` statements. */
async function staticGraphOfCli(): Promise<Set<string>> {
  const result = await build({
    absWorkingDir: resolve(import.meta.dirname, '..'),
    entryPoints: ['src/cli.ts'],
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    outdir: 'unused',
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const inputs = result.metafile.inputs
  const reached = new Set(['src/cli.ts'])
  const queue = ['src/cli.ts']
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const edge of inputs[next]?.imports ?? []) {
      if (edge.kind !== 'import-statement' || edge.external || reached.has(edge.path)) continue
      reached.add(edge.path)
      queue.push(edge.path)
    }
  }
  return reached
}

it('the start path to the early initialize answer loads none of the server', async () => {
  const reached = await staticGraphOfCli()
  expect(reached.has('src/process/early-start/early-initialize.ts')).toBe(true)
  expect(SERVER_MODULES.filter((path) => reached.has(path))).toEqual([])
})

it('nor the JSON-RPC engine: the version choice before the answer throws no protocol error class', async () => {
  const reached = await staticGraphOfCli()
  const engine = [...reached].filter((path) => path.includes('node_modules/vscode-jsonrpc/'))
  expect(engine).toEqual([])
  expect(reached.has('src/acp/errors.ts')).toBe(false)
})
