// Helpers of the schema generators: a TypeScript module of src/ loaded in memory (bundled with
// esbuild, no build of dist/ needed), and a generated file compared with or written over its old text.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The module `entry` (a path from the repository root), bundled and imported. */
export async function importTs(entry) {
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
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
}

/**
 * Writes each `[path, text]` whose file differs; with `check`, writes nothing and says which are
 * stale instead (`regenerate`: the command that brings them up to date). True when all are current.
 */
export function writeGenerated(texts, check, regenerate) {
  let current = true
  for (const [out, text] of texts) {
    let old = ''
    try {
      old = readFileSync(join(root, out), 'utf8')
    } catch {}
    if (old === text) continue
    if (check) {
      console.error(`${out} is out of date: run ${regenerate}`)
      current = false
    } else writeFileSync(join(root, out), text)
  }
  return current
}

/** `text` as `biome format` writes a file at `out` (its extension chooses the language). */
export function biomeFormatted(text, out) {
  return execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${out}`], {
    cwd: root,
    input: text,
    encoding: 'utf8',
  })
}
