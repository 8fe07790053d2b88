import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import pg from 'pg'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { INLINE_BEFORE_BYTES } from '../../src/agent/checkpoints/checkpoint-event.js'
import { createScriptProvider } from '../../src/agent/providers/script.js'
import { parseModelScript } from '../../src/agent/providers/script-format.js'
import { agentPlugin } from '../../src/agent/service.js'
import { plugPersistence } from '../../src/persistence/index.js'
import { sessionsPlugin } from '../../src/session/index.js'
import { AgentProcess } from '../support/agent-process.js'
import { freshSchema, sharedPostgres } from '../support/postgres/test-database.js'

// File checkpoints with `--store postgres://…`: the built binary keeps a large file's old content
// as a `dsh_blobs` row (before the event naming it), and another process restores the file from it.

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
beforeAll(() => sharedPostgres(), 120_000)

const BIG = `${'a line of the big file\n'.repeat(Math.ceil(INLINE_BEFORE_BYTES / 10))}the end\n`
const TURNS = [
  [
    [
      {
        toolCall: {
          name: 'edit_text_file',
          input: { path: 'big.txt', edits: [{ oldText: 'the end', newText: 'changed' }] },
        },
      },
    ],
    [{ text: 'done' }],
  ],
]

describe('file checkpoints on PostgreSQL (built binary)', () => {
  it('keeps the old content in dsh_blobs and another process restores it', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-acp-pg-ckpt-')))
    dirs.push(base)
    const cwd = join(base, 'project')
    mkdirSync(cwd)
    writeFileSync(join(cwd, 'big.txt'), BIG)
    const model = join(base, 'model.json')
    writeFileSync(model, JSON.stringify({ turns: TURNS }))
    const url = await freshSchema()
    const agent = new AgentProcess({
      storeDir: url,
      cwd,
      args: ['--model', `script:${model}`],
      setupClient: (app) =>
        app.onRequest('session/request_permission', ({ params }) => ({
          outcome: {
            outcome: 'selected',
            optionId: params.options.find((o) => o.kind === 'allow_once')?.optionId ?? '',
          },
        })),
    })
    agents.push(agent)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd, mcpServers: [] })
    const answer = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go' }],
    })
    expect(answer.stopReason).toBe('end_turn')
    expect(await agent.stop()).toBe(0)
    expect(readFileSync(join(cwd, 'big.txt'), 'utf8')).toBe(BIG.replace('the end', 'changed'))

    const client = new pg.Client(url)
    await client.connect()
    const blobs = await client.query<{ hash: string; bytes: Buffer }>('SELECT hash, bytes FROM dsh_blobs')
    const refs = await client.query<{ hash: string }>(
      'SELECT hash FROM dsh_blob_refs WHERE session_id = $1',
      [sessionId],
    )
    await client.end()
    const hash = createHash('sha256').update(BIG).digest('hex')
    expect(blobs.rows.map((r) => [r.hash, r.bytes.toString('utf8')])).toEqual([[hash, BIG]])
    expect(refs.rows).toEqual([{ hash }])

    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(sessionsPlugin)
    const store = await plugPersistence(ctx, url)
    if (!store.blobs) throw new Error('the PostgreSQL store has no blobs')
    ctx.plugin(agentPlugin, {
      provider: createScriptProvider(parseModelScript([])),
      checkpointBlobs: store.blobs,
    })
    await ctx.start()
    await store.ready()
    const session = await ctx.sessions.load(sessionId)
    ctx.agent.files.openedIn(sessionId, [cwd])
    const restored = await ctx.agent.restoreFiles({ session, boundary: 0, dryRun: false })
    expect(restored.restored).toEqual([join(cwd, 'big.txt')])
    expect(readFileSync(join(cwd, 'big.txt'), 'utf8')).toBe(BIG)
  })
})
