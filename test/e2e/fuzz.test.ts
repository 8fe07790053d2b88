import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { messagesOf } from '../support/openai-wire.js'

const run = promisify(execFile)

describe('fuzzing the built binary with hostile frames (bounded; `npm run fuzz [frames] [seed]` runs longer)', () => {
  it('2,000 seeded frames: no exit, every well-formed request answered exactly once, every session loadable', async () => {
    expect(existsSync('dist/cli.cjs'), 'run `npm run build` first').toBe(true)
    const result = await run(process.execPath, ['scripts/fuzz.mjs', '2000', '20261130'], {
      timeout: 240_000,
      maxBuffer: 1 << 24,
    }).catch((error: { stdout?: string; stderr?: string }) => error)
    const match =
      /fuzz: 2000 frames \(seed 20261130\), (\d+) of (\d+) requests answered exactly once, (\d+) of (\d+) sessions loadable, exit 0/.exec(
        result.stdout ?? '',
      )
    expect(match, `${result.stdout}\n${result.stderr}`).not.toBeNull()
    expect(result.stderr ?? '').not.toContain('fuzz found')
    const [answered, requests, loadable, stored] = (match as RegExpExecArray).slice(1).map(Number)
    expect(answered).toBe(requests)
    expect(requests).toBeGreaterThan(1000)
    expect(loadable).toBe(stored)
    expect(stored).toBeGreaterThan(3)
  })
})

/** Patterns and arguments a prompt-injected model might send the search tools. */
const HOSTILE_REGEXES = [
  '^(.+)+#',
  '(a+)+$',
  '(a|aa)+#',
  '(.*a){25}#',
  '(x+x+)+y',
  '(a)\\1',
  '(?<n>a)\\k<n>',
  'a(?=b)',
  '(?<!a)b',
  '(',
  '[',
  '\\',
  'x{1001}',
  '(a|b)*a(a|b){1000}$',
  `${'('.repeat(300)}a${')'.repeat(300)}`,
  '.*'.repeat(2000),
  'é\u0000\u{1F600}',
  '\\p{Greek}+',
  '(?i)todo',
  'a'.repeat(100_000),
]
const HOSTILE_GLOBS = [
  '**/*?*?*?*?*?*?*?*?*?*?*?*?#',
  '{'.repeat(200),
  `${'{a,'.repeat(50)}b${'}'.repeat(50)}`,
  '[',
  '[z-a]',
  '**/'.repeat(800),
  '*'.repeat(10_000),
  '\\',
  '../outside/*',
  '/etc/*',
  '{a,b}'.repeat(300),
  '[!]]*',
]
const ODD_EXTRAS: readonly Record<string, unknown>[] = [
  {},
  {},
  {},
  {},
  { path: '..' },
  { path: '/' },
  { path: 'no-such-dir' },
  { path: 'x'.repeat(50_000) },
  { path: 'names/\u0000' },
  { maxResults: 0 },
  { maxResults: 1e12 },
  { maxResults: 1.5 },
  { ignoreCase: 'yes' },
  { surprise: { deep: [[[[[[1]]]]]] } },
]
const RAW_ARGUMENTS = [
  'not json',
  '[]',
  'null',
  '{"pattern":',
  '"^(.+)+#"',
  `{"pattern":"${'['.repeat(10_000)}"}`,
]

/** A seeded generator (mulberry32: the same seed, the same calls). */
function seeded(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T
}

function hostileCall(pick: ReturnType<typeof seeded>, id: string) {
  const kind = pick(['search', 'search', 'search-glob', 'find', 'find', 'raw'] as const)
  if (kind === 'raw') return { id, name: pick(['search_text', 'find_files']), arguments: pick(RAW_ARGUMENTS) }
  const extra = pick(ODD_EXTRAS)
  const args =
    kind === 'search'
      ? { pattern: pick(HOSTILE_REGEXES), ...extra }
      : kind === 'search-glob'
        ? { pattern: pick(HOSTILE_REGEXES), glob: pick(HOSTILE_GLOBS), ...extra }
        : { pattern: pick(HOSTILE_GLOBS), ...extra }
  return { id, name: kind === 'find' ? 'find_files' : 'search_text', arguments: JSON.stringify(args) }
}

describe('fuzzing the search tools through the model (issue 28)', () => {
  const start = openAiAgents()
  const ROUNDS = 10
  const CALLS = 6

  it(`${ROUNDS} prompts of ${CALLS} seeded hostile search calls: every call answered, the agent keeps serving`, async () => {
    const pick = seeded(20261202)
    const batches = Array.from({ length: ROUNDS }, (_, round) =>
      Array.from({ length: CALLS }, (_, i) => hostileCall(pick, `r${round}c${i}`)),
    )
    const script: FakeReply[] = batches.flatMap((toolCalls) => [
      { stream: completionStream({ toolCalls }) },
      { stream: completionStream({ text: 'still here' }) },
    ])
    const run = await start({ script })
    mkdirSync(join(run.cwd, 'names'))
    const line = 'abcdefghij_klmnopqrst-uvwxyz0123456789ABCDEF'
    writeFileSync(join(run.cwd, 'names', '.gitignore'), '*?*?*?*?*?*?*?*?*?*?*?*?#\n*a*a*a*a*a*a*a*a*a*a#\n')
    for (let i = 0; i < 8; i++)
      writeFileSync(join(run.cwd, 'names', `${line.slice(0, 40)}${i}000`), `${line}\n`.repeat(40))
    const sessionId = await run.newSession()
    for (const [round, batch] of batches.entries()) {
      expect((await run.prompt(sessionId, `round ${round}`)).stopReason, `round ${round}`).toBe('end_turn')
      const results = messagesOf(run.fake.requests[2 * round + 1]).filter(
        (m): m is { role: 'tool'; tool_call_id: string; content: string } =>
          (m as { role?: string }).role === 'tool',
      )
      const answered = results.filter((m) => m.tool_call_id.startsWith(`r${round}c`))
      expect(answered.map((m) => m.tool_call_id).sort()).toEqual(batch.map((c) => c.id).sort())
      for (const m of answered) expect(typeof m.content, m.tool_call_id).toBe('string')
      const listed = await run.agent.agent.request('session/list', {})
      expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId)
    }
    await expectCleanExit(run)
  })
})
