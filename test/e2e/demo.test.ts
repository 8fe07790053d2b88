import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runDemo } from '../../scripts/demo.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('npm run demo (scripts/demo.ts against the built server)', () => {
  it('tells the fork story: the child remembers the inherited first message and its own, the parent everything', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'dsh-acp-demo-test-'))
    dirs.push(workDir)
    const account: string[] = []
    const facts = await runDemo({ workDir, print: (line) => account.push(line) })
    const text = account.join('\n')

    expect(facts.seedLength).toBe(facts.boundary)
    expect(text).toContain(`_meta.dsh.boundary = ${facts.boundary}`)
    expect(facts.childAnswer).toContain('I remember 2 messages')
    // What the demo says about the child agrees with what the child answers (2 messages).
    expect(text).toContain('it remembers the first message and this one')
    expect(facts.childAnswer).toContain('"My name is Ada."')
    expect(facts.childAnswer).not.toContain('compiler')
    expect(facts.parentAnswer).toContain('I remember 3 messages')
    expect(facts.parentAnswer).toContain('compiler')

    expect(facts.lineage).toHaveLength(2)
    expect(facts.lineage[0]).toMatch(new RegExp(`^${facts.parent}  "My name is Ada\\."  `))
    expect(facts.lineage[1]).toMatch(
      new RegExp(`^└─ ${facts.child}  "My name is Ada\\. \\(fork\\)"  forked at seq ${facts.boundary}`),
    )

    expect(text).toContain(facts.transcriptFile)
    expect(text).toContain(facts.storeDir)
    // The two sessions, and the list's saved catalog (the demo lists the store).
    expect(readdirSync(facts.storeDir).sort()).toEqual(
      ['.catalog.json', `${facts.child}.jsonl`, `${facts.parent}.jsonl`].sort(),
    )
    expect(existsSync(facts.transcriptFile)).toBe(true)
    const methods = readFileSync(facts.transcriptFile, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => (JSON.parse(line) as { dir: string; msg: { method?: string } }).msg.method)
    expect(methods).toContain('session/fork')
    expect(methods.filter((m) => m === 'session/prompt')).toHaveLength(4)
  })
})
