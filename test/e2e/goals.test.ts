import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { goalWireErrors } from '../../src/acp/goals/wire-schema.js'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'

/**
 * Session goals (`_session/goal`) over real stdio with the official client and the scripted model:
 * the agent goes on with turns of its own while the goal is active, until the model says it is met
 * (`goal_status`), a limit stops it, or the user does; the goal is kept in the log.
 */

const { start, tempDir } = testResources()
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

/** A model that needs three turns: the third says the goal is met. */
const THREE_TURNS = {
  turns: [
    [[{ text: 'did the first part' }]],
    [[{ text: 'did the second part' }]],
    [
      [
        {
          toolCall: {
            name: 'goal_status',
            input: { status: 'complete', reason: 'all three parts are done' },
          },
        },
      ],
      [{ text: 'the goal is met' }],
    ],
    [[{ text: 'a fork answers' }]],
  ],
}

/** A model whose turn never ends by itself: every step calls a tool (answered by the script). */
const ENDLESS = {
  turns: [
    Array.from({ length: 5 }, (_, i) => [
      { toolCall: { name: 'read_text_file', input: { path: 'x' }, result: `part ${i}` } },
    ]),
  ],
}

function scripted(model: unknown, args: string[] = [], storeDir?: string): AgentProcess {
  const dir = tempDir('dsh-acp-goal-')
  const file = join(dir, 'model.json')
  writeFileSync(file, JSON.stringify(model))
  return start({ args: ['--model', `script:${file}`, ...args], ...(storeDir && { storeDir }) })
}

interface GoalShown {
  objective: string
  status: string
  iterations: number
  lastReason: string | null
  createdAt: string
}

/** The goals the session's `session_info_update`s showed, in order (null: cleared). */
function goalsShown(updates: readonly acp.SessionNotification[], sessionId: string): (GoalShown | null)[] {
  return updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'session_info_update')
    .map((u) => u.update._meta as { goal?: GoalShown | null } | undefined)
    .filter((meta) => meta !== undefined && 'goal' in meta)
    .map((meta) => meta?.goal ?? null)
}

async function newSession(agent: AgentProcess): Promise<string> {
  const { sessionId } = await agent.agent.request('session/new', { cwd: PROJECT_DIR, mcpServers: [] })
  return sessionId
}

function goalRequest(agent: AgentProcess, params: Record<string, unknown>) {
  return agent.agent.request('_session/goal', params) as Promise<{ goal: GoalShown | null }>
}

describe('session goals over stdio', () => {
  it('initialize advertises the goal extension; a goal the model needs three turns for is complete after three, in one prompt', async () => {
    const agent = scripted(THREE_TURNS)
    const init = await agent.initialize()
    expect(goalWireErrors('initializeMeta', init._meta)).toEqual([])
    const sessionId = await newSession(agent)
    const set = await goalRequest(agent, { sessionId, action: 'set', objective: 'do the three parts' })
    expect(goalWireErrors('goalResult', set)).toEqual([])
    expect(set.goal).toMatchObject({ objective: 'do the three parts', status: 'active', iterations: 0 })
    const done = await agent.agent.request('session/prompt', { sessionId, prompt: [text('start')] })
    expect(done.stopReason).toBe('end_turn')
    const shown = goalsShown(agent.updates, sessionId)
    for (const goal of shown) expect(goalWireErrors('goalOrNull', goal)).toEqual([])
    expect(shown.map((g) => [g?.status, g?.iterations])).toEqual([
      ['active', 0],
      ['active', 1],
      ['active', 2],
      ['complete', 3],
    ])
    expect(shown.at(-1)?.lastReason).toBe('all three parts are done')
    expect(shown.every((g) => g?.createdAt === set.goal?.createdAt)).toBe(true)
    // The agent's own prompts are shown as user messages; the model was asked three times (four requests).
    const userTexts = agent.updates
      .filter((u) => u.update.sessionUpdate === 'user_message_chunk')
      .map((u) => (u.update as { content: { text?: string } }).content.text ?? '')
    expect(userTexts).toHaveLength(2)
    expect(userTexts.every((t) => t.includes('do the three parts') && t.includes('goal_status'))).toBe(true)
    // Nothing more runs: the goal is complete.
    expect(await goalRequest(agent, { sessionId, action: 'pause' }).catch((e) => e.code)).toBe(-32602)
    const fork = await agent.agent.request('session/fork', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const before = agent.updates.length
    await agent.agent.request('session/load', { sessionId: fork.sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    const forkShown = goalsShown(agent.updates.slice(before), fork.sessionId)
    expect(forkShown.at(-1)).toMatchObject({ status: 'complete', iterations: 3 })
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('a turn that hits the step limit makes the goal limited; no turn follows', async () => {
    const agent = scripted(ENDLESS, ['--max-steps', '2'])
    await agent.initialize()
    const sessionId = await newSession(agent)
    await goalRequest(agent, { sessionId, action: 'set', objective: 'never done' })
    const done = await agent.agent.request('session/prompt', { sessionId, prompt: [text('go')] })
    expect(done.stopReason).toBe('max_turn_requests')
    const last = goalsShown(agent.updates, sessionId).at(-1)
    expect(last).toMatchObject({ status: 'limited', iterations: 1 })
    expect(last?.lastReason).toContain('step limit (2 model requests)')
    const resumed = await goalRequest(agent, { sessionId, action: 'resume' })
    expect(resumed.goal).toMatchObject({ status: 'active', iterations: 1 })
    const cleared = await goalRequest(agent, { sessionId, action: 'clear' })
    expect(cleared).toEqual({ goal: null })
    expect(goalsShown(agent.updates, sessionId).at(-1)).toBeNull()
    expect(await agent.stop()).toBe(0)
    expect(agent.audit.problems).toEqual([])
  })

  it('survives a restart: load shows the goal, and the next prompt works toward it until complete', async () => {
    const first = scripted(THREE_TURNS)
    await first.initialize()
    const sessionId = await newSession(first)
    await goalRequest(first, { sessionId, action: 'set', objective: 'do the three parts' })
    expect(await first.stop()).toBe(0)

    const second = scripted(THREE_TURNS, [], first.storeDir)
    await second.initialize()
    await second.agent.request('session/load', { sessionId, cwd: PROJECT_DIR, mcpServers: [] })
    expect(goalsShown(second.updates, sessionId)).toMatchObject([{ status: 'active', iterations: 0 }])
    const done = await second.agent.request('session/prompt', { sessionId, prompt: [text('start')] })
    expect(done.stopReason).toBe('end_turn')
    expect(goalsShown(second.updates, sessionId).at(-1)).toMatchObject({ status: 'complete', iterations: 3 })
    expect(await second.stop()).toBe(0)
    expect(second.audit.problems).toEqual([])
    first.cleanup()
  })

  it('refuses bad params and actions the goal does not allow, clearly', async () => {
    const agent = scripted(THREE_TURNS)
    await agent.initialize()
    const sessionId = await newSession(agent)
    const code = (params: Record<string, unknown>) => goalRequest(agent, params).catch((e) => e.code)
    expect(await code({ sessionId, action: 'set' })).toBe(-32602)
    expect(await code({ sessionId, action: 'pause', objective: 'x' })).toBe(-32602)
    expect(await code({ sessionId, action: 'explode' })).toBe(-32602)
    expect(await code({ sessionId, action: 'pause' })).toBe(-32602)
    expect(await code({ sessionId, action: 'resume' })).toBe(-32602)
    expect(await code({ sessionId: 'sess_nothere', action: 'clear' })).toBe(-32002)
    expect(await goalRequest(agent, { sessionId, action: 'clear' })).toEqual({ goal: null })
    expect(goalsShown(agent.updates, sessionId)).toEqual([])
    expect(await agent.stop()).toBe(0)
  })
})
