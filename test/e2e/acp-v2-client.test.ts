import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'
import { checkV2 } from '../support/v2/v2-schema.js'

/**
 * ACP v2 as an editor drives it: the SDK's own v2 client (`@agentclientprotocol/sdk/experimental/v2`)
 * against the built binary over stdio, every line the agent writes checked against the SDK's v2
 * schema (stable where the method is stable, unstable otherwise).
 */

const dirs: string[] = []
const agents: V2AgentProcess[] = []
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const ORIGINAL = 'const answer = 41\nexport default answer\n'

/** A work directory: a project with `app.ts`, a store, and a model script (an edit, then a long turn). */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-v2-client-'))
  dirs.push(dir)
  const project = join(dir, 'project')
  const file = join(project, 'app.ts')
  mkdirSync(project)
  writeFileSync(file, ORIGINAL)
  const edit = {
    toolCall: {
      id: 'call_edit',
      name: 'edit_text_file',
      input: { path: file, edits: [{ oldText: 'const answer = 41', newText: 'const answer = 42' }] },
    },
  }
  const turns = [
    [[{ thought: 'Fix it.' }, edit], [{ text: 'Fixed the answer.' }]],
    [[{ delayMs: 60000 }, { text: 'late' }]],
  ]
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns }))
  return { dir, project, file, store: join(dir, 'store'), model: `script:${join(dir, 'model.json')}` }
}

const REPRODUCIBLE = [
  '--fake-clock',
  '2026-01-01T00:00:00.000Z',
  '--id-prefix',
  'ses_',
  '--log-level',
  'error',
]

describe('ACP v2 with the SDK v2 client', () => {
  it('new, a tool turn with a permission and a diff, a cancel, resume with and without replay, fork', async () => {
    const w = workspace()
    const permissions: Record<string, any>[] = []
    const agent = new V2AgentProcess({
      args: ['--store', w.store, '--model', w.model, ...REPRODUCIBLE],
      setupClient: (app) =>
        app.onRequest('session/request_permission', ({ params }) => {
          permissions.push(params)
          return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
        }),
    })
    agents.push(agent)
    const init = await agent.initialize()
    expect(init.protocolVersion).toBe(2)
    const { sessionId } = await agent.agent.request('session/new', { cwd: w.project })

    // The tool turn: ack with the user message id, running, requires_action around the permission.
    const ack = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'fix the answer in app.ts' }],
    })
    const idle = await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle')
    expect(idle.stopReason).toBe('end_turn')
    const turn = agent.audit.updates()
    expect(turn.find((u) => u.sessionUpdate === 'user_message')?.messageId).toBe(ack.messageId)
    expect(turn.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)).toEqual([
      'running',
      'requires_action',
      'running',
      'idle',
    ])
    expect(permissions).toHaveLength(1)
    expect(permissions[0]).toMatchObject({
      sessionId,
      title: expect.any(String),
      subject: { type: 'tool_call', toolCall: { toolCallId: 'call_edit' } },
    })
    expect(permissions[0]).not.toHaveProperty('toolCall')
    // Every chunk has its messageId; tool calls only as tool_call_update; the diff as v2's.
    for (const u of turn.filter((u) => String(u.sessionUpdate).endsWith('_chunk')))
      expect(u.messageId).toEqual(expect.any(String))
    expect(turn.some((u) => u.sessionUpdate === 'tool_call')).toBe(false)
    const diff = turn
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .flatMap((u) => u.content ?? [])
      .find((c: Record<string, any>) => c.type === 'diff')
    expect(diff).toMatchObject({
      changes: [{ operation: 'modify', path: w.file }],
      patch: { format: 'git_patch', text: expect.stringContaining('+const answer = 42') },
    })
    // No client fs on v2: our own file tool wrote the file.
    expect(readFileSync(w.file, 'utf8')).toBe(ORIGINAL.replace('41', '42'))

    // A cancel is confirmed by idle with cancelled.
    const before = agent.audit.updates().length
    const second = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'take your time' }],
    })
    await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'running', before)
    await agent.agent.notify('session/cancel', { sessionId })
    const cancelled = await agent.until(
      (u) => u.sessionUpdate === 'state_update' && u.state === 'idle',
      before,
    )
    expect(cancelled.stopReason).toBe('cancelled')

    // Resume with a replay from the start shows the history; without one, nothing is replayed.
    const replayStart = agent.audit.updates().length
    const resumed = await agent.agent.request('session/resume', {
      sessionId,
      cwd: w.project,
      replayFrom: { type: 'start' },
    })
    expect(resumed).toBeDefined()
    const replay = agent.audit.updates().slice(replayStart)
    expect(replay.some((u) => u.sessionUpdate === 'tool_call_update')).toBe(true)
    // A replay shows each message whole (v2's upserts), not as chunks.
    expect(replay.filter((u) => u.sessionUpdate === 'user_message').map((u) => u.messageId)).toContain(
      ack.messageId,
    )
    expect(replay.find((u) => u.sessionUpdate === 'agent_message')).toMatchObject({
      messageId: expect.any(String),
      content: [{ type: 'text', text: 'Fixed the answer.' }],
    })
    expect(replay.find((u) => u.sessionUpdate === 'agent_thought')).toMatchObject({
      content: [{ type: 'text', text: 'Fix it.' }],
    })
    expect(replay.some((u) => String(u.sessionUpdate).endsWith('_chunk'))).toBe(false)
    const plainStart = agent.audit.updates().length
    await agent.agent.request('session/resume', { sessionId, cwd: w.project })
    expect(
      agent.audit
        .updates()
        .slice(plainStart)
        .filter((u) => /message|tool_call/.test(String(u.sessionUpdate))),
    ).toEqual([])

    // Fork just before the cancelled turn's user message (a message-id fork point), and at a boundary.
    const child = await agent.agent.request(
      'session/fork' as never,
      {
        sessionId,
        cwd: w.project,
        _meta: { dsh: { messageId: second.messageId } },
      } as never,
    )
    expect(child).toMatchObject({
      sessionId: expect.any(String),
      _meta: { dsh: { parentSession: sessionId } },
    })
    expect(child).not.toHaveProperty('modes')
    const atStart = await agent.agent.request(
      'session/fork' as never,
      {
        sessionId,
        cwd: w.project,
        _meta: { dsh: { boundary: 0 } },
      } as never,
    )
    const seed = (answer: unknown) =>
      (answer as { _meta: { dsh: { seedLength: number } } })._meta.dsh.seedLength
    expect(seed(child)).toBeGreaterThan(0)
    expect(seed(atStart)).toBeLessThan(seed(child))

    expect(agent.audit.problems).toEqual([])
    // The check can fail: v1's chunk (no messageId) is no v2 update.
    const v1Chunk = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } }
    expect(checkV2('session/update', 'params', { sessionId, update: v1Chunk })).not.toEqual([])
  })

  it('the same turn over v1 and v2 leaves the same store file', async () => {
    const stores: Map<string, string>[] = []
    for (const version of [1, 2]) {
      const w = workspace()
      const args = ['--model', w.model, ...REPRODUCIBLE]
      const prompt = [{ type: 'text' as const, text: 'fix the answer in app.ts' }]
      if (version === 1) {
        const agent = new AgentProcess({
          storeDir: w.store,
          cwd: w.project,
          args,
          setupClient: (app) =>
            app.onRequest('session/request_permission', () => ({
              outcome: { outcome: 'selected', optionId: 'allow_once' },
            })),
        })
        await agent.initialize()
        const { sessionId } = await agent.agent.request('session/new', { cwd: w.project, mcpServers: [] })
        await agent.agent.request('session/prompt', { sessionId, prompt })
        await agent.stop()
      } else {
        const agent = new V2AgentProcess({
          args: ['--store', w.store, ...args],
          setupClient: (app) =>
            app.onRequest('session/request_permission', () => ({
              outcome: { outcome: 'selected', optionId: 'allow_once' },
            })),
        })
        await agent.initialize()
        const { sessionId } = await agent.agent.request('session/new', { cwd: w.project })
        await agent.agent.request('session/prompt', { sessionId, prompt })
        await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle')
        await agent.stop()
      }
      const files = new Map(
        readdirSync(w.store)
          .filter((name) => name.endsWith('.jsonl'))
          .map((name) => [name, readFileSync(join(w.store, name), 'utf8').replaceAll(w.dir, '<work>')]),
      )
      stores.push(files)
    }
    expect(stores[0]?.size).toBeGreaterThan(0)
    expect(stores[1]).toEqual(stores[0])
  })

  it('list, set_title, status, a mode as a config option, archive, rewind (both shapes), usage, close, delete: in v2 words', async () => {
    const w = workspace()
    const usage = { usage: { inputTokens: 120, outputTokens: 8 }, contextWindow: 1000 }
    writeFileSync(
      join(w.dir, 'model.json'),
      JSON.stringify({
        turns: [[[{ text: 'One.' }, usage]], [[{ text: 'Two.' }, usage]], [[{ text: 'Three.' }]]],
      }),
    )
    const agent = new V2AgentProcess({ args: ['--store', w.store, '--model', w.model, ...REPRODUCIBLE] })
    agents.push(agent)
    const init = await agent.initialize()
    expect(init.capabilities?.session).toMatchObject({ fork: {}, archive: {}, status: {}, title: {} })
    const { sessionId } = await agent.agent.request('session/new', { cwd: w.project })
    const turn = async (text: string) => {
      const from = agent.audit.updates().length
      const ack = await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
      await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', from)
      return ack.messageId
    }
    const first = await turn('one')
    const second = await turn('two')
    expect(agent.audit.updates().some((u) => u.sessionUpdate === 'usage_update')).toBe(true)
    const request = (method: string, params: unknown) =>
      agent.agent.request(method as never, params as never) as Promise<Record<string, unknown>>
    await request('session/set_title', { sessionId, title: 'Renamed' })
    expect(agent.audit.updates().at(-1)).toMatchObject({
      sessionUpdate: 'session_info_update',
      title: 'Renamed',
    })
    const list = await agent.agent.request('session/list', {})
    expect(list.sessions.map((row) => row.title)).toEqual(['Renamed'])
    expect(await request('session/status', { sessionId })).toBeDefined()
    const mode = await agent.agent.request('session/set_config_option', {
      sessionId,
      configId: 'mode',
      type: 'id',
      value: 'accept-edits',
    })
    expect(mode.configOptions?.find((o) => o.configId === 'mode')).toMatchObject({
      category: 'mode',
      currentValue: 'accept-edits',
    })
    await request('session/archive', { sessionId })
    await request('session/unarchive', { sessionId })
    // Rewind, claude-agent-acp's shape (messageId, mode) then JetBrains AIR's (beforeMessage).
    await request('_session/rewind', { sessionId, messageId: second, mode: 'conversation' })
    const third = await turn('three')
    const { points } = (await request('_session/rewind_points', { sessionId })) as {
      points: { messageId: string; resumeAtMessageId: string }[]
    }
    const point = points.find((p) => p.messageId === third)
    await request('_session/rewind', {
      sessionId,
      beforeMessage: { messageId: third },
      resumeAtMessage: { messageId: point?.resumeAtMessageId },
    })
    const replayFrom = agent.audit.updates().length
    await agent.agent.request('session/resume', { sessionId, cwd: w.project, replayFrom: { type: 'start' } })
    const replayed = agent.audit
      .updates()
      .slice(replayFrom)
      .filter((u) => u.sessionUpdate === 'user_message')
      .map((u) => u.messageId)
    expect(replayed).toEqual([first])
    await agent.agent.request('session/close', { sessionId })
    await agent.agent.request('session/delete', { sessionId })
    expect((await agent.agent.request('session/list', {})).sessions).toEqual([])
    expect(agent.audit.problems).toEqual([])
  })

  it('one store for both: a session made over v1 resumes with a replay and forks over v2, then loads over v1 again', async () => {
    const w = workspace()
    writeFileSync(
      join(w.dir, 'model.json'),
      JSON.stringify({ turns: [[[{ text: 'One.' }]], [[{ text: 'Two.' }]]] }),
    )
    const args = ['--model', w.model, '--log-level', 'error']
    const v1 = new AgentProcess({ storeDir: w.store, cwd: w.project, args })
    await v1.initialize()
    const { sessionId } = await v1.agent.request('session/new', { cwd: w.project, mcpServers: [] })
    await v1.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] })
    await v1.stop()

    const v2 = new V2AgentProcess({ args: ['--store', w.store, ...args] })
    agents.push(v2)
    await v2.initialize()
    await v2.agent.request('session/resume', { sessionId, cwd: w.project, replayFrom: { type: 'start' } })
    const replayed = v2.audit.updates().map((u) => u.sessionUpdate)
    expect(replayed).toEqual(expect.arrayContaining(['user_message', 'agent_message']))
    const ack = await v2.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'two' }],
    })
    await v2.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle')
    const child = (await v2.agent.request(
      'session/fork' as never,
      {
        sessionId,
        cwd: w.project,
        _meta: { dsh: { messageId: ack.messageId } },
      } as never,
    )) as { sessionId: string }
    expect(v2.audit.problems).toEqual([])
    await v2.stop()
    agents.splice(agents.indexOf(v2), 1)

    const again = new AgentProcess({ storeDir: w.store, cwd: w.project, args })
    await again.initialize()
    await again.agent.request('session/load', { sessionId, cwd: w.project, mcpServers: [] })
    const texts = again.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text)
    expect(texts).toEqual(['One.', 'Two.'])
    await again.agent.request('session/load', { sessionId: child.sessionId, cwd: w.project, mcpServers: [] })
    const childTexts = again.updates
      .filter((n) => n.sessionId === child.sessionId && n.update.sessionUpdate === 'agent_message_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text)
    expect(childTexts).toEqual(['One.'])
    expect(again.audit.problems).toEqual([])
    await again.stop()
  })

  it('a plan (plan_update) and a compaction (/compact) in v2 words', async () => {
    const w = workspace()
    const agent = new V2AgentProcess({ args: ['--store', w.store, '--model', 'echo', ...REPRODUCIBLE] })
    agents.push(agent)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: w.project })
    const turn = async (text: string) => {
      const from = agent.audit.updates().length
      await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
      await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'idle', from)
      return agent.audit.updates().slice(from)
    }
    const planned = await turn('plan: read the code; write the fix')
    const plans = planned.filter((u) => u.sessionUpdate === 'plan_update')
    expect(plans.length).toBeGreaterThan(1)
    expect(plans.at(-1)?.plan).toMatchObject({
      type: 'items',
      entries: [{ status: 'completed' }, { status: 'completed' }],
    })
    const compacted = await turn('/compact')
    expect(compacted.map((u) => u.sessionUpdate)).toContain('compaction_update')
    expect(agent.audit.problems).toEqual([])
  })
})
