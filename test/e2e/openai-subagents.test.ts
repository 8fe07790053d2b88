import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { builtinTools } from '../../src/agent/builtin-tools.js'
import { UPDATE_PLAN_TOOL } from '../../src/agent/plan/update-plan-tool.js'
import type { FakeReply, RecordedRequest } from '../support/fake-openai.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { deferred, toolNamesOf, until } from '../support/openai-wire.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'
import { ASK, childOf, delegate, REMEMBER, say, TASK } from '../support/subagent-conversation.js'

/** The built-in tools offered to an editor that shows no forms (so not `ask_user`). */
const offeredBuiltins = () => builtinTools().filter((tool) => tool.offeredTo?.({}) ?? true)

/**
 * Fork-based subagents end to end, what the model sees: the built binary, the official ACP
 * client, a fake chat-completions server whose usage reports cached tokens from an exact-prefix
 * cache. What the editor sees: openai-subagent-editor.test.ts; loading: openai-subagent-load.test.ts.
 */

const start = openAiAgents()

/** Parent: turn 1 plain, turn 2 delegates once; the child answers from the inherited history. */
const ROUND_TRIP: Record<string, ModelMove[]> = {
  [REMEMBER]: [say('Noted.')],
  [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('The helper says kiwi.')],
  [TASK]: [say('kiwi')],
}

function bodies(run: OpenAiAgent, user: string): RecordedRequest[] {
  return run.fake.requests.filter((r) => lastUserText(r.body) === user)
}

interface LoggedUsage {
  readonly inputTokens: number
  readonly cachedInputTokens?: number
}

function usages(run: OpenAiAgent, sessionId: string, fromSeq = 0): LoggedUsage[] {
  return run
    .loggedEvents(sessionId)
    .filter((e) => e.seq > fromSeq && e.type === 'assistant/message' && e.data.usage)
    .map((e) => e.data.usage as LoggedUsage)
}

describe('delegate end to end', () => {
  it('--no-subagents: the model is not offered delegate', async () => {
    const run = await start({
      script: conversationModel({ hi: [say('hello')] }).script,
      args: ['--no-subagents'],
    })
    const parent = await run.newSession()
    expect((await run.prompt(parent, 'hi')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0])).toEqual(
      [...offeredBuiltins().map((tool) => tool.spec.name), UPDATE_PLAN_TOOL].sort(),
    )
    await expectCleanExit(run)
  })

  it('round trip: the child’s first request is the parent’s prefix byte for byte, then the task; its answer is the tool result; cached tokens land in both logs; restart and load both', async () => {
    const model = conversationModel(ROUND_TRIP, { dialect: (u) => (u === TASK ? 'deepseek' : 'openai') })
    const run = await start({ script: model.script })
    const parent = await run.newSession()
    expect((await run.prompt(parent, REMEMBER)).stopReason).toBe('end_turn')
    const turn1End = run.loggedEvents(parent).length
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')

    // The request bodies: the child's first one repeats the parent's, up to the end of turn 1.
    const [parentStep1] = bodies(run, ASK)
    const [childFirst] = bodies(run, TASK)
    const parentMessages = (parentStep1?.body?.messages ?? []) as unknown[]
    const childMessages = (childFirst?.body?.messages ?? []) as unknown[]
    const shared = parentMessages.slice(0, -1)
    expect(childMessages.slice(0, -1)).toEqual(shared)
    expect(childMessages.at(-1)).toEqual({ role: 'user', content: TASK })
    const sharedText = JSON.stringify(shared).slice(0, -1)
    expect(parentStep1?.rawBody.startsWith(`{"model":"fake-model-1","messages":${sharedText},`)).toBe(true)
    expect(childFirst?.rawBody.startsWith(`{"model":"fake-model-1","messages":${sharedText},`)).toBe(true)
    expect(JSON.stringify(childFirst?.body?.tools)).toBe(JSON.stringify(parentStep1?.body?.tools))

    // The result in the parent, and the next parent request carries it.
    const events = run.loggedEvents(parent)
    expect(events.find((e) => e.type === 'tool/result')?.data).toMatchObject({
      callId: 'call_d',
      output: 'kiwi',
    })
    const [, parentStep2] = bodies(run, ASK)
    expect((parentStep2?.body?.messages as unknown[] | undefined)?.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_d',
      content: 'kiwi',
    })

    // The child: listed with its lineage and marker, durable, its own turn after the seed.
    const child = await childOf(run, parent)
    expect(child.title).toBe('Recall')
    expect(child._meta).toMatchObject({
      dsh: { parentSession: parent, seedLength: turn1End, subagent: { turn: 2, callId: 'call_d' } },
    })
    // Its turn over, the child is let go (lock released); the parent stays open, and idle it holds
    // no lock either (the pen is let go once its turn is durable).
    expect(existsSync(join(run.storeDir, `${child.sessionId}.lock`))).toBe(false)
    expect(existsSync(join(run.storeDir, `${parent}.lock`))).toBe(false)
    const childEvents = run.loggedEvents(child.sessionId)
    expect(childEvents.slice(0, turn1End)).toEqual(events.slice(0, turn1End))
    expect(childEvents.at(-1)?.data).toMatchObject({ turn: 2, reason: 'completed' })

    // Cached tokens, as each provider dialect reports them, recorded in both sessions' usage.
    const [childUsage] = usages(run, child.sessionId, turn1End)
    expect(childUsage?.cachedInputTokens).toBeGreaterThan(0)
    const sharedBytes = ['null', ...shared.map((m) => JSON.stringify(m))].join('\n').length
    expect(childUsage?.cachedInputTokens).toBeGreaterThanOrEqual(Math.floor(sharedBytes / 4))
    const parentUsages = usages(run, parent, turn1End)
    expect(parentUsages).toHaveLength(2)
    expect(parentUsages[1]?.cachedInputTokens).toBeGreaterThan(0)

    // Restart: both load, each replaying its own log.
    await run.restart()
    const parentReplay = await run.replay(parent)
    // The parent's replay shows which child ran its delegate call (from its subagent:spawned event).
    expect(parentReplay.map((n) => n.update.sessionUpdate)).toContain('tool_call_update')
    const link = parentReplay.find((n) => (n.update as { _meta?: { dsh?: unknown } })._meta?.dsh)
    expect(link?.update).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_d',
      status: 'in_progress',
      title: 'Subagent: Recall',
      _meta: { dsh: { subagent: { sessionId: child.sessionId } } },
    })
    const childReplay = await run.replay(child.sessionId)
    const userTexts = childReplay
      .filter((n) => n.update.sessionUpdate === 'user_message_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text)
    expect(userTexts).toEqual([REMEMBER, TASK])
    await expectCleanExit(run)
  })

  it('concurrent delegations in one step all run at once; each answer goes to its call', async () => {
    const gate = deferred()
    let waiting = 0
    const model = conversationModel(
      {
        go: [
          delegate(
            { id: 'd1', task: 'part one' },
            { id: 'd2', task: 'part two' },
            { id: 'd3', task: 'part three' },
          ),
          say('All three done.'),
        ],
        'part one': [say('one')],
        'part two': [say('two')],
        'part three': [say('three')],
      },
      {
        hold: (user, reply): FakeReply => {
          if (!user.startsWith('part') || !('stream' in reply)) return reply
          waiting++
          return { stream: [{ until: gate.promise }, ...reply.stream] }
        },
      },
    )
    const run = await start({ script: model.script })
    const parent = await run.newSession()
    const prompting = run.prompt(parent, 'go')
    await until(() => waiting === 3)
    gate.resolve()
    expect((await prompting).stopReason).toBe('end_turn')
    const results = run.loggedEvents(parent).filter((e) => e.type === 'tool/result')
    expect(results.map((e) => [e.data.callId, e.data.output])).toEqual([
      ['d1', 'one'],
      ['d2', 'two'],
      ['d3', 'three'],
    ])
    await expectCleanExit(run)
  })

  it('a child whose model fails: the parent gets the failure as the tool result and goes on', async () => {
    const model = conversationModel({
      go: [delegate({ id: 'd1', task: 'doomed' }), say('The helper failed; carrying on.')],
    })
    const run = await start({ script: model.script, args: ['--max-retries', '0'] })
    const parent = await run.newSession()
    expect((await run.prompt(parent, 'go')).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    expect(run.loggedEvents(child.sessionId).at(-1)?.data).toMatchObject({ reason: 'error' })
    const result = run.loggedEvents(parent).find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: true })
    expect(String(result?.data.output)).toMatch(new RegExp(`^Subagent ${child.sessionId} failed: `))
    await expectCleanExit(run)
  })

  it('session/cancel of the parent during a delegation cancels the child: both turns end cancelled', async () => {
    const model = conversationModel(
      { go: [delegate({ id: 'd1', task: 'slow' })], slow: [say('never')] },
      { hold: (user, reply) => (user === 'slow' ? { hang: true } : reply) },
    )
    const run = await start({ script: model.script })
    const parent = await run.newSession()
    const prompting = run.prompt(parent, 'go')
    await until(() => run.fake.requests.some((r) => lastUserText(r.body) === 'slow'))
    await run.agent.agent.notify('session/cancel', { sessionId: parent })
    expect((await prompting).stopReason).toBe('cancelled')
    const child = await childOf(run, parent)
    expect(run.loggedEvents(child.sessionId).at(-1)?.data).toMatchObject({ reason: 'cancelled' })
    expect(run.loggedEvents(parent).at(-1)?.data).toMatchObject({ reason: 'cancelled' })
    expect(run.loggedEvents(parent).find((e) => e.type === 'tool/result')?.data).toMatchObject({
      isError: true,
    })
    await expectCleanExit(run)
  })
})
