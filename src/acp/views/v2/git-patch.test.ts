import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { gitPatch } from './git-patch.js'

/** `git apply` of the patch to `before` in a scratch directory gives `after`. */
function applied(before: string | null, after: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-patch-'))
  if (before !== null) writeFileSync(join(dir, 'f.txt'), before)
  const patch = gitPatch('f.txt', before, after)
  if (patch === '') return before ?? ''
  writeFileSync(join(dir, 'p.diff'), patch)
  execFileSync('git', ['apply', '--unidiff-zero', 'p.diff'], { cwd: dir, stdio: 'pipe' })
  return readFileSync(join(dir, 'f.txt'), 'utf8')
}

const line = fc.constantFrom('a', 'b', 'c', 'd', '')
const text = fc.array(line, { maxLength: 12 }).map((lines) => lines.map((l) => `${l}\n`).join(''))

describe('gitPatch', () => {
  it('is a patch git applies: old text to new text', () => {
    fc.assert(
      fc.property(text, text, (before, after) => applied(before, after) === after),
      { numRuns: 40 },
    )
  })

  it('creates a new file from nothing', () => {
    expect(applied(null, 'one\ntwo\n')).toBe('one\ntwo\n')
    expect(gitPatch('/w/f.txt', null, 'x\n')).toContain('--- /dev/null')
  })

  it('is empty when nothing changed', () => {
    expect(gitPatch('f', 'same\n', 'same\n')).toBe('')
  })
})
