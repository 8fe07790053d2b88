import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { call, calls, say, toolResults } from '../support/fake-replies.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, updatesOfKind } from '../support/openai-wire.js'

/**
 * The built-in tools end to end through the official client, without the client's `fs` and
 * `terminal` (local disk and local processes): listing, finding, searching, editing and running,
 * every escape attempt, and the permission answers (once, always, and "always" surviving a restart
 * and a load).
 */

const start = openAiAgents()

function answering(kinds: acp.PermissionOptionKind[]) {
  const asked: acp.RequestPermissionRequest[] = []
  return {
    asked,
    setupClient: (app: acp.ClientApp) => {
      app.onRequest('session/request_permission', ({ params }) => {
        asked.push(params)
        const kind = kinds.shift() ?? 'reject_once'
        const option = params.options.find((o) => o.kind === kind)
        return { outcome: { outcome: 'selected', optionId: option?.optionId ?? 'none' } }
      })
    },
  }
}

describe('built-in tools on the local disk', () => {
  it('list, find and search read the workspace without asking, skipping .git and .gitignore’d files', async () => {
    const run = await start({
      script: [
        calls([
          ['l1', 'list_directory', {}],
          ['f1', 'find_files', { pattern: '**/*.ts' }],
          ['s1', 'search_text', { pattern: 'TODO' }],
        ]),
        say('found'),
      ],
    })
    mkdirSync(join(run.cwd, 'src'))
    mkdirSync(join(run.cwd, '.git'))
    mkdirSync(join(run.cwd, 'build'))
    writeFileSync(join(run.cwd, '.gitignore'), 'build/\n')
    writeFileSync(join(run.cwd, 'src/app.ts'), 'const x = 1 // TODO tidy\n')
    writeFileSync(join(run.cwd, 'build/out.ts'), '// TODO generated\n')
    writeFileSync(join(run.cwd, '.git/HEAD'), 'TODO git\n')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'look around')).stopReason).toBe('end_turn')
    expect(toolResults(run.fake.requests[1])).toEqual({
      l1: '.git/\n.gitignore\nbuild/\nsrc/',
      f1: 'src/app.ts',
      s1: 'src/app.ts:1: const x = 1 // TODO tidy',
    })
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toEqual([])
    const kinds = updatesOfKind(run.updatesOf(sessionId), 'tool_call').map((u) => [
      u.update.kind,
      u.update.title,
    ])
    expect(kinds).toEqual([
      ['read', 'List .'],
      ['search', 'Find **/*.ts'],
      ['search', 'Search for TODO'],
    ])
    await expectCleanExit(run)
  })

  it('every escape attempt is refused and nothing outside cwd is read, listed or changed', async () => {
    const run = await start({
      script: [
        calls([
          [
            'e1',
            'edit_text_file',
            { path: '../scratch/victim.txt', edits: [{ oldText: 'safe', newText: 'owned' }] },
          ],
          [
            'e2',
            'edit_text_file',
            { path: 'link/victim.txt', edits: [{ oldText: 'safe', newText: 'owned' }] },
          ],
          ['w1', 'write_text_file', { path: '/etc/dsh-acp-should-not-exist', content: 'x' }],
          ['r1', 'read_text_file', { path: 'link/victim.txt' }],
          ['l1', 'list_directory', { path: '..' }],
          ['f1', 'find_files', { pattern: '../scratch/*' }],
          ['s1', 'search_text', { pattern: 'safe', path: '../scratch' }],
          ['s2', 'search_text', { pattern: 'safe' }],
        ]),
        say('refused'),
      ],
      setupClient: answering(['allow_once', 'allow_once', 'allow_once']).setupClient,
    })
    writeFileSync(join(run.scratch, 'victim.txt'), 'safe\n')
    symlinkSync(run.scratch, join(run.cwd, 'link'))
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'try to escape')).stopReason).toBe('end_turn')
    const results = toolResults(run.fake.requests[1])
    for (const id of ['e1', 'e2', 'w1', 'r1', 'l1', 'f1', 's1']) {
      expect(results[id], id).toMatch(/^Error: .*(outside|relative to the working directory)/)
    }
    expect(results.s2).toBe('No matches for /safe/')
    expect(readFileSync(join(run.scratch, 'victim.txt'), 'utf8')).toBe('safe\n')
    for (const request of run.fake.requests) expect(request.rawBody).not.toContain('victim.txt:')
    await expectCleanExit(run)
  })

  it('edit_text_file: the diff reaches the editor; allow_always is kept in the log across a restart and a load', async () => {
    const editor = answering(['allow_always'])
    const run = await start({
      script: [
        call('e1', 'edit_text_file', { path: 'a.txt', edits: [{ oldText: 'one', newText: 'uno' }] }),
        say('edited'),
        call('e2', 'edit_text_file', { path: 'a.txt', edits: [{ oldText: 'two', newText: 'dos' }] }),
        say('edited again'),
      ],
      setupClient: editor.setupClient,
    })
    writeFileSync(join(run.cwd, 'a.txt'), 'one\ntwo\n')
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'edit')).stopReason).toBe('end_turn')
    expect(editor.asked).toHaveLength(1)
    expect(editor.asked[0]?.toolCall).toMatchObject({
      title: 'Edit a.txt',
      kind: 'edit',
      locations: [{ path: join(run.cwd, 'a.txt') }],
    })
    expect(editor.asked[0]?.options.map((o) => o.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ])
    const done = updatesOfKind(run.updatesOf(sessionId), 'tool_call_update').find(
      (u) => u.update.status === 'completed',
    )
    expect(done?.update.content).toEqual([
      { type: 'diff', path: join(run.cwd, 'a.txt'), oldText: 'one\ntwo\n', newText: 'uno\ntwo\n' },
    ])
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'permission:always')?.data).toEqual({
      tool: 'edit_text_file',
      scope: 'edit_text_file',
      allow: true,
    })

    await run.restart()
    const replay = await run.replay(sessionId)
    expect(updatesOfKind(replay, 'tool_call_update').at(-1)?.update.content).toEqual(done?.update.content)
    expect((await run.prompt(sessionId, 'edit again')).stopReason).toBe('end_turn')
    expect(editor.asked).toHaveLength(1)
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('uno\ndos\n')
    await expectCleanExit(run)
  })

  it('run_command without the terminal capability: a local process in cwd; reject_always stops that command line', async () => {
    const editor = answering(['allow_once', 'reject_always'])
    const run = await start({
      script: [
        calls([
          ['c1', 'run_command', { command: 'pwd && echo out && echo err >&2' }],
          ['c2', 'run_command', { command: 'touch should-not-exist' }],
          ['c3', 'run_command', { command: 'touch should-not-exist' }],
        ]),
        say('ran'),
      ],
      setupClient: editor.setupClient,
    })
    const sessionId = await run.newSession()
    expect((await run.prompt(sessionId, 'run things')).stopReason).toBe('end_turn')
    const results = toolResults(run.fake.requests[1])
    // Where bubblewrap cannot run, the output ends with a note saying so (sandbox.test.ts covers it).
    expect(results.c1?.replace(/\n\[ran without a sandbox: [^\]\n]*\]$/, '')).toBe(
      `exit code 0\n${run.cwd}\nout\nerr\n`,
    )
    expect(results.c2).toBe('Error: Not run: the user refused permission for Run touch should-not-exist.')
    expect(results.c3).toBe('Error: Not run: the user chose to always reject this.')
    expect(editor.asked).toHaveLength(2)
    expect(editor.asked[0]?.toolCall).toMatchObject({
      kind: 'execute',
      title: 'Run pwd && echo out && echo err >&2',
    })
    expect(agentRequests(run.agent.audit.entries, 'terminal/create')).toEqual([])
    expect(run.loggedEvents(sessionId).find((e) => e.type === 'permission:always')?.data).toEqual({
      tool: 'run_command',
      scope: 'run_command:touch should-not-exist',
      allow: false,
    })
    await expectCleanExit(run)
  })
})
