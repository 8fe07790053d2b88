import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { INLINE_BEFORE_BYTES } from '../../src/agent/checkpoints/checkpoint-event.js'
import { createScriptProvider } from '../../src/agent/providers/script.js'
import { parseModelScript } from '../../src/agent/providers/script-format.js'
import { agentPlugin } from '../../src/agent/service.js'
import { BlobDirectory, persistencePlugin } from '../../src/persistence/index.js'
import { sessionsPlugin } from '../../src/session/index.js'
import { AgentProcess } from '../support/agent-process.js'

/**
 * Issue 24, file checkpoints: the built binary, driven by a scripted model that writes and edits
 * files (the user allowing each), records each change in the session file and the store's blob
 * directory; then, in another process as after a restart, the AgentService loaded on that store
 * restores the files to a boundary, refusing the one the user changed since unless forced.
 */

const dirs: string[] = []
const agents: AgentProcess[] = []
const contexts: Context[] = []
afterEach(async () => {
  for (const ctx of contexts.splice(0)) {
    await ctx.sessions.closeAll().catch(() => {})
    await ctx.stop()
  }
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const BIG = `${'a line of the big file\n'.repeat(Math.ceil(INLINE_BEFORE_BYTES / 20))}the end\n`

const call = (name: string, input: unknown) => ({ toolCall: { name, input } })
const TURNS = [
  [
    [
      call('write_text_file', { path: 'new.txt', content: 'created\n' }),
      call('edit_text_file', { path: 'big.txt', edits: [{ oldText: 'the end', newText: 'the first end' }] }),
    ],
    [{ text: 'turn one done' }],
  ],
  [
    [
      call('edit_text_file', {
        path: 'new.txt',
        edits: [{ oldText: 'created', newText: 'created, then edited' }],
      }),
      call('edit_text_file', { path: 'small.txt', edits: [{ oldText: 'small', newText: 'tiny' }] }),
      call('write_text_file', { path: 'made/deep.txt', content: 'deep\n' }),
      call('edit_text_file', {
        path: 'big.txt',
        edits: [{ oldText: 'the first end', newText: 'the second end' }],
      }),
    ],
    [{ text: 'turn two done' }],
  ],
]

function allowing(
  app: Parameters<NonNullable<ConstructorParameters<typeof AgentProcess>[0]>['setupClient'] & {}>[0],
) {
  app.onRequest('session/request_permission', ({ params }) => {
    const option = params.options.find((o) => o.kind === 'allow_once')
    if (!option) throw new Error('no allow_once option offered')
    return { outcome: { outcome: 'selected', optionId: option.optionId } }
  })
}

/** The store opened in this process, as another server would open it: the store, the JSONL backend, the agent. */
async function openStore(storeDir: string): Promise<Context> {
  const ctx = new Context()
  contexts.push(ctx)
  ctx.plugin(sessionsPlugin)
  ctx.plugin(persistencePlugin, { dir: storeDir })
  ctx.plugin(agentPlugin, {
    provider: createScriptProvider(parseModelScript([])),
    checkpointBlobs: new BlobDirectory(join(storeDir, 'blobs')),
  })
  await ctx.start()
  return ctx
}

describe('file checkpoints through the built binary', () => {
  it('records every change, and a later process restores the files to a boundary', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-acp-ckpt-')))
    dirs.push(base)
    const cwd = join(base, 'project')
    const storeDir = join(base, 'store')
    mkdirSync(cwd)
    writeFileSync(join(cwd, 'big.txt'), BIG)
    writeFileSync(join(cwd, 'small.txt'), 'small\n')
    const model = join(base, 'model.json')
    writeFileSync(model, JSON.stringify({ turns: TURNS }))

    const agent = new AgentProcess({
      storeDir,
      cwd,
      args: ['--model', `script:${model}`],
      setupClient: allowing,
    })
    agents.push(agent)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
    const ends: number[] = []
    for (const text of ['one', 'two']) {
      const answer = await agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text }],
      })
      expect(answer.stopReason).toBe('end_turn')
      ends.push((answer._meta as { dsh: { seq: number } }).dsh.seq)
    }
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
    const at = (name: string) => join(cwd, name)
    expect(readFileSync(at('new.txt'), 'utf8')).toBe('created, then edited\n')

    // The log names each change; the big file's old content is a blob (once), the small one's inline.
    const lines = readFileSync(join(storeDir, `${sessionId}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
    const checkpoints = lines.map((line) => JSON.parse(line)).filter((e) => e.type === 'checkpoint:file')
    expect(checkpoints.map((e) => [e.data.turn, e.data.path, e.data.before === 'absent'])).toEqual([
      [1, at('new.txt'), true],
      [1, at('big.txt'), false],
      [2, at('new.txt'), false],
      [2, at('small.txt'), false],
      [2, at('made/deep.txt'), true],
      [2, at('big.txt'), false],
    ])
    expect(checkpoints[3].data.beforeText).toBe('small\n')
    expect(checkpoints[1].data.beforeText).toBeUndefined()
    // Beside the blobs: the `.process.<pid>.<start>` marker of a process writing blobs while it runs.
    expect(readdirSync(join(storeDir, 'blobs')).filter((name) => !name.startsWith('.process.'))).toHaveLength(
      2,
    )

    // Someone else changes small.txt after the session's last change to it.
    writeFileSync(at('small.txt'), 'the user was here\n')
    const ctx = await openStore(storeDir)
    const session = await ctx.sessions.load(sessionId)
    // A restore acts only where a request named the session's directory (as session/load does).
    ctx.agent.files.openedIn(sessionId, [cwd])
    const request = { session, boundary: ends[0] as number }
    const dry = await ctx.agent.restoreFiles({ ...request, dryRun: true })
    const expected = {
      restored: [at('new.txt'), at('big.txt')],
      removed: [at('made/deep.txt')],
      conflicts: [
        {
          path: at('small.txt'),
          reason:
            'changed since the session last wrote it (by someone else); not overwritten (force to overwrite it)',
        },
      ],
      commandsRan: false,
      // new.txt and big.txt each had a line changed; deep.txt (one line) was created.
      insertions: 3,
      deletions: 2,
    }
    expect(dry).toEqual(expected)
    expect(existsSync(at('made/deep.txt'))).toBe(true)
    expect(await ctx.agent.restoreFiles({ ...request, dryRun: false })).toEqual(expected)
    expect(readFileSync(at('new.txt'), 'utf8')).toBe('created\n')
    expect(readFileSync(at('big.txt'), 'utf8')).toBe(BIG.replace('the end', 'the first end'))
    expect(existsSync(at('made/deep.txt'))).toBe(false)
    expect(readFileSync(at('small.txt'), 'utf8')).toBe('the user was here\n')

    const forced = await ctx.agent.restoreFiles({ session, boundary: 0, dryRun: false, force: true })
    expect(forced).toEqual({
      restored: [at('big.txt'), at('small.txt')],
      removed: [at('new.txt')],
      conflicts: [],
      commandsRan: false,
      // A line each of big.txt and small.txt (now the user's) changes back; new.txt (one line) goes.
      insertions: 3,
      deletions: 2,
    })
    expect(readFileSync(at('big.txt'), 'utf8')).toBe(BIG)
    expect(readFileSync(at('small.txt'), 'utf8')).toBe('small\n')
  })
})
