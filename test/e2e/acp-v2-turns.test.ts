import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { V2AgentProcess } from '../support/v2/v2-agent-process.js'

/**
 * A v2 turn's updates, as an editor drives it with the SDK's own v2 client
 * (`@agentclientprotocol/sdk/experimental/v2`) against the built binary: steering (the
 * `session.steering` draft), whole-message upserts, subagents. Every line the agent writes is
 * checked against the SDK's v2 schema.
 */

const dirs: string[] = []
const agents: V2AgentProcess[] = []
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const text = (value: string) => [{ type: 'text' as const, text: value }]
const isState = (state: string) => (u: Record<string, any>) =>
  u.sessionUpdate === 'state_update' && u.state === state

/** A deferred answer to the permission request, and the moment it was asked. */
function heldPermission() {
  let asked!: () => void
  let answer!: (optionId: string) => void
  const wasAsked = new Promise<void>((done) => {
    asked = done
  })
  const answered = new Promise<string>((done) => {
    answer = done
  })
  return { asked, wasAsked, answer, answered }
}

/** A project with a store and a `script:` model of `turns(project)`; a v2 agent on it, permissions held. */
function start(turns: (project: string) => unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-v2-turns-'))
  dirs.push(dir)
  const project = join(dir, 'project')
  const store = join(dir, 'store')
  mkdirSync(project)
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns: turns(project) }))
  const held = heldPermission()
  const agent = new V2AgentProcess({
    args: ['--store', store, '--model', `script:${join(dir, 'model.json')}`, '--log-level', 'error'],
    setupClient: (app) =>
      app.onRequest('session/request_permission', async () => {
        held.asked()
        return { outcome: { outcome: 'selected', optionId: await held.answered } }
      }),
  })
  agents.push(agent)
  /** The event types of the session's log, in order. */
  const logged = (sessionId: string) => {
    const file = readdirSync(store).find((name) => name.startsWith(sessionId) && name.endsWith('.jsonl'))
    return readFileSync(join(store, file ?? ''), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type?: string; data?: Record<string, unknown> })
      .filter((event) => event.type !== undefined)
  }
  return { project, agent, held, logged }
}

/**
 * A turn that writes `a.txt` (asking permission), then answers. The script model reads a steered
 * message as the start of its next scripted turn, so the answer is scripted as one too.
 */
const writeTurn = (project: string) => [
  [
    [
      {
        toolCall: {
          id: 'call_w',
          name: 'write_text_file',
          input: { path: join(project, 'a.txt'), content: 'x' },
        },
      },
    ],
  ],
  [[{ text: 'Wrote it, in blue.' }]],
]

describe('ACP v2 steering (the session.steering draft)', () => {
  it('a prompt sent while the turn waits on a permission is inserted after the tool result, answered with its messageId, shown whole; the turn never goes idle in between', async () => {
    const { project, agent, held, logged } = start(writeTurn)
    await agent.initialize()
    // On the wire (the SDK's client keeps only the fields its schema has).
    const init = agent.audit.lines.find((l) => l.dir === 'out' && l.message.result?.protocolVersion === 2)
    expect(init?.message.result.capabilities.session).toMatchObject({ steering: {} })
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    const first = await agent.agent.request('session/prompt', { sessionId, prompt: text('write a.txt') })
    await held.wasAsked
    const steering = agent.agent.request('session/prompt', { sessionId, prompt: text('make it blue') })
    // Written before the permission's answer: the server reads (and offers) it first.
    held.answer('allow_once')
    const steered = await steering
    expect(steered.messageId).not.toBe(first.messageId)
    expect(await agent.until(isState('idle'))).toMatchObject({ stopReason: 'end_turn' })
    const updates = agent.audit.updates()
    expect(updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)).toEqual([
      'running',
      'requires_action',
      'running',
      'idle',
    ])
    expect(
      updates.find((u) => u.sessionUpdate === 'user_message' && u.messageId === steered.messageId),
    ).toEqual({
      sessionUpdate: 'user_message',
      messageId: steered.messageId,
      content: text('make it blue'),
      _meta: { dsh: { steered: true } },
    })
    const types = logged(sessionId).map((e) => e.type)
    const at = types.lastIndexOf('user/message')
    expect(types.slice(at - 2, at + 1)).toEqual(['tool/result', 'step/end', 'user/message'])
    expect(types.filter((t) => t === 'turn/end')).toHaveLength(1)
    expect(agent.audit.problems).toEqual([])
  })

  it('session/cancel drops a steer not yet inserted: its prompt is answered -32800, nothing of it is logged', async () => {
    const { project, agent, held, logged } = start(writeTurn)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    await agent.agent.request('session/prompt', { sessionId, prompt: text('write a.txt') })
    await held.wasAsked
    const steering = agent.agent.request('session/prompt', { sessionId, prompt: text('never mind') })
    const refused = steering.then(
      () => undefined,
      (error: { code?: number }) => error,
    )
    await agent.agent.notify('session/cancel', { sessionId })
    held.answer('allow_once')
    expect(await refused).toMatchObject({ code: -32800 })
    expect(await agent.until(isState('idle'))).toMatchObject({ stopReason: 'cancelled' })
    expect(JSON.stringify(logged(sessionId))).not.toContain('never mind')
    expect(agent.audit.problems).toEqual([])
  })

  it('a prompt while no turn runs starts a turn; a slash command while one runs is its own turn after it', async () => {
    const { project, agent, held } = start(writeTurn)
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    await agent.agent.request('session/prompt', { sessionId, prompt: text('write a.txt') })
    await held.wasAsked
    const command = agent.agent.request('session/prompt', { sessionId, prompt: text('/help') })
    held.answer('allow_once')
    const ack = await command
    await agent.until((u) => isState('idle')(u) && agent.audit.updates().filter(isState('idle')).length === 2)
    const updates = agent.audit.updates()
    expect(updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)).toEqual([
      'running',
      'requires_action',
      'running',
      'idle',
      'running',
      'idle',
    ])
    expect(
      updates.find((u) => u.sessionUpdate === 'user_message' && u.messageId === ack.messageId),
    ).toBeDefined()
    expect(agent.audit.problems).toEqual([])
  })
})

describe('ACP v2 subagents (the unstable schema’s subagent_update: every v2 client registers children)', () => {
  it('a delegation announces the child with subagent_update before any update of the child, the child’s turn under its own id with its own state_update, and its end mirrored on the parent', async () => {
    // The script model plays the child (one user message, like the parent) the same turn: its
    // delegate call is refused there (a subagent does not delegate), then it answers.
    const { project, agent } = start(() => [
      [
        [{ toolCall: { id: 'call_d', name: 'delegate', input: { task: 'say hi', title: 'Greeter' } } }],
        [{ text: 'The helper said hi.' }],
      ],
    ])
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    await agent.agent.request('session/prompt', { sessionId, prompt: text('ask a helper to say hi') })
    expect(await agent.until(isState('idle'))).toMatchObject({ stopReason: 'end_turn' })
    const sent = agent.audit.lines
      .filter((l) => l.dir === 'out' && l.message.method === 'session/update')
      .map((l) => l.message.params as { sessionId: string; update: Record<string, any> })
    const announced = sent.findIndex((n) => n.update.sessionUpdate === 'subagent_update')
    const child = sent[announced]?.update.sessionId as string
    expect(sent[announced]).toMatchObject({
      sessionId,
      update: {
        sessionUpdate: 'subagent_update',
        sessionId: child,
        title: 'Greeter',
        state: { state: 'running' },
      },
    })
    const childUpdates = sent.filter((n) => n.sessionId === child)
    expect(sent.findIndex((n) => n.sessionId === child)).toBeGreaterThan(announced)
    expect(childUpdates.map((n) => n.update.sessionUpdate)).toEqual(
      expect.arrayContaining(['state_update', 'user_message', 'agent_message_chunk']),
    )
    expect(
      childUpdates.filter((n) => n.update.sessionUpdate === 'state_update').map((n) => n.update.state),
    ).toEqual(['running', 'idle'])
    expect(
      sent.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'subagent_update').at(-1),
    ).toMatchObject({
      update: { sessionId: child, state: { state: 'idle', stopReason: 'end_turn' } },
    })
    expect(agent.audit.problems).toEqual([])
  })
})

describe('ACP v2 goals (session_info_update._meta.goal, a key of v2’s _meta patch)', () => {
  it('offered at initialize; a goal set, then one prompt: the agent’s own turns toward it run inside that prompt’s foreground work (one running, one idle), each shown as a whole user message; cleared as _meta.goal null', async () => {
    const { project, agent } = start(() => [
      [[{ text: 'Read the failing test.' }]],
      [
        [{ toolCall: { name: 'goal_status', input: { status: 'complete', reason: 'the suite passes' } } }],
        [{ text: 'The goal is met.' }],
      ],
    ])
    await agent.initialize()
    const init = agent.audit.lines.find((l) => l.dir === 'out' && l.message.result?.protocolVersion === 2)
    expect(init?.message.result._meta.goal).toMatchObject({ controlMethod: '_session/goal' })
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    const request = (params: Record<string, unknown>) =>
      agent.agent.request('_session/goal' as never, { sessionId, ...params } as never)
    await request({ action: 'set', objective: 'make the tests pass' })
    const ack = await agent.agent.request('session/prompt', { sessionId, prompt: text('start on the goal') })
    expect(await agent.until(isState('idle'))).toMatchObject({ stopReason: 'end_turn' })
    const updates = agent.audit.updates()
    expect(updates.filter((u) => u.sessionUpdate === 'state_update').map((u) => u.state)).toEqual([
      'running',
      'idle',
    ])
    const goals = updates.flatMap((u) =>
      u._meta?.goal ? [`${u._meta.goal.status} ${u._meta.goal.iterations}`] : [],
    )
    expect(goals).toEqual(['active 0', 'active 1', 'complete 2'])
    const prompts = updates.filter((u) => u.sessionUpdate === 'user_message')
    expect(prompts.map((u) => u.messageId)).toEqual([ack.messageId, expect.any(String)])
    expect(prompts[1]?.content).toEqual([
      { type: 'text', text: expect.stringContaining('make the tests pass') },
    ])
    await request({ action: 'clear' })
    expect(agent.audit.updates().at(-1)).toMatchObject({
      sessionUpdate: 'session_info_update',
      _meta: { goal: null },
    })
    expect(agent.audit.problems).toEqual([])
  })
})

describe('ACP v2 display terminals (no client terminal on v2: the agent owns one per command)', () => {
  it('run_command shows its terminal (terminal_update, appended to the call with tool_call_content_chunk), its output as terminal_output_chunk, its end as terminal_update exitStatus', async () => {
    const { project, agent, held } = start(() => [
      [
        [
          {
            toolCall: {
              id: 'call_r',
              name: 'run_command',
              input: { command: "printf 'one\\n'; printf 'two\\n' >&2; exit 3" },
            },
          },
        ],
        [{ text: 'It failed with 3.' }],
      ],
    ])
    held.answer('allow_once')
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: project })
    await agent.agent.request('session/prompt', { sessionId, prompt: text('run it') })
    expect(await agent.until(isState('idle'))).toMatchObject({ stopReason: 'end_turn' })
    const updates = agent.audit.updates()
    const terminal = updates.filter(
      (u) => String(u.sessionUpdate).startsWith('terminal_') || u.sessionUpdate === 'tool_call_content_chunk',
    )
    const terminalId = terminal[0]?.terminalId
    expect(terminal[0]).toEqual({
      sessionUpdate: 'terminal_update',
      terminalId,
      command: "printf 'one\\n'; printf 'two\\n' >&2; exit 3",
      cwd: project,
    })
    expect(terminal[1]).toEqual({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId: 'call_r',
      content: { type: 'terminal', terminalId },
    })
    const output = terminal
      .filter((u) => u.sessionUpdate === 'terminal_output_chunk')
      .map((u) => Buffer.from(u.terminalId === terminalId ? u.data : '', 'base64').toString('utf8'))
      .join('')
    expect(output.split('\n').sort()).toEqual(['', 'one', 'two'])
    expect(terminal.at(-1)).toEqual({
      sessionUpdate: 'terminal_update',
      terminalId,
      exitStatus: { exitCode: 3 },
    })
    // The call's result follows the terminal's end, as a whole tool_call_update.
    const result = updates.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
    expect(result).toBeGreaterThan(updates.indexOf(terminal.at(-1) ?? {}))
    expect(agent.audit.problems).toEqual([])
  })
})
