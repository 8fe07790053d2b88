import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { calls, say, toolResults } from '../support/fake-replies.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { updatesOfKind } from '../support/openai-wire.js'

/**
 * Issue 28 #1 end to end: a model-supplied pattern never holds the event loop. The patterns that
 * froze the agent (on ordinary 44-character lines and names) finish; and while a long search runs,
 * the agent keeps answering requests and `session/cancel` ends the turn.
 */

const start = openAiAgents()

const LINE_44 = 'abcdefghij_klmnopqrst-uvwxyz0123456789ABCDEF'
const HOSTILE_GLOB = '**/*?*?*?*?*?*?*?*?*?*?*?*?#'

describe('hostile search patterns', () => {
  it('^(.+)+# and **/*?*?…# on 44-character lines and names are answered, and the agent keeps serving', async () => {
    const run = await start({
      script: [
        calls([
          ['s1', 'search_text', { pattern: '^(.+)+#' }],
          ['f1', 'find_files', { pattern: HOSTILE_GLOB }],
          ['s2', 'search_text', { pattern: 'abc', glob: HOSTILE_GLOB }],
          ['s3', 'search_text', { pattern: '(a)\\1' }],
        ]),
        say('searched'),
      ],
    })
    mkdirSync(join(run.cwd, 'data'))
    for (let i = 0; i < 10; i++) {
      writeFileSync(
        join(run.cwd, 'data', `${LINE_44.slice(0, 40)}${String(i).padStart(4, '0')}`),
        `${LINE_44}\n`.repeat(50),
      )
    }
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'search')).stopReason).toBe('end_turn')
    const results = toolResults(run.fake.requests[1])
    expect(results.s1).toBe('No matches for /^(.+)+#/')
    expect(results.f1).toBe(`No files match ${HOSTILE_GLOB}`)
    expect(results.s2).toBe('No matches for /abc/')
    expect(results.s3).toMatch(/^Error: .*invalid regular expression: backreferences .* not supported/)
    const listed = await run.agent.agent.request('session/list', {})
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId)
    await expectCleanExit(run)
  })

  it('during a long search session/list is answered, and session/cancel ends the turn', async () => {
    const { run, sessionId, prompt } = await longSearch()
    const listed = await run.agent.agent.request('session/list', {})
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId)
    const finished = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').filter(
      (u) => u.update.status === 'completed' || u.update.status === 'failed',
    )
    expect(finished, 'the search was still running when session/list was answered').toEqual([])
    await run.agent.agent.notify('session/cancel', { sessionId })
    expect((await prompt).stopReason).toBe('cancelled')
    expect(run.fake.requests).toHaveLength(1)
    await expectCleanExit(run)
  })

  it('during a long search SIGTERM cancels the turn and the agent exits', async () => {
    const { run, prompt } = await longSearch()
    const exited = new Promise<number | null>((resolve) => run.agent.child.once('exit', resolve))
    run.agent.child.kill('SIGTERM')
    expect((await prompt).stopReason).toBe('cancelled')
    expect(await exited).toBe(0)
  })
})

/** A turn whose search_text runs for minutes, once its call is in progress. */
async function longSearch() {
  // JavaScript's engine never finishes the first alternative on these lines; RE2 spends a good
  // fraction of a second on each line for the second, so the search runs for minutes.
  const pattern = '^(.+)+#|(a|b)*a(a|b){1000}$'
  const run = await start({ script: [calls([['s1', 'search_text', { pattern }]]), say('never')] })
  for (let i = 0; i < 4; i++)
    writeFileSync(join(run.cwd, `wide-${i}.txt`), `${'ab'.repeat(8000)}\n`.repeat(120))
  const sessionId = await run.newSession()
  const prompt = run.prompt(sessionId, 'search wide')
  await vi.waitFor(
    () =>
      expect(
        updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').some(
          (u) => u.update.status === 'in_progress',
        ),
      ).toBe(true),
    { timeout: 30_000, interval: 20 },
  )
  return { run, sessionId, prompt }
}
