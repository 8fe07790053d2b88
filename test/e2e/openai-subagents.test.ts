import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { FakeReply, RecordedRequest } from '../support/fake-openai.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { agentRequests, deferred, toolNamesOf, until } from '../support/openai-wire.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'
import type { WireEntry } from '../support/wire-audit.js'

/**
 * Fork-based subagents end to end: the built binary, the official ACP client, a fake
 * chat-completions server whose usage reports cached tokens from an exact-prefix cache.
 */

const start = openAiAgents()

const REMEMBER = 'remember: the code word is kiwi'
const ASK = 'ask a helper for the code word'
const TASK = 'what is the code word?'

const say = (text: string): ModelMove => ({ text })
const delegate = (...tasks: { id: string; task: string; title?: string }[]): ModelMove => ({
  calls: tasks.map(({ id, ...input }) => ({ id, name: 'delegate', arguments: input })),
})

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

/** Every message the agent wrote, parsed. */
const outgoing = (entries: readonly WireEntry[]) =>
  entries.filter((e) => e.dir === 'out').map((e) => e.message as Record<string, unknown>)

async function childOf(run: OpenAiAgent, parent: string): Promise<acp.SessionInfo> {
  const { sessions } = await run.agent.agent.request('session/list', {})
  const child = sessions.find(
    (s) => (s._meta as { dsh?: { parentSession?: string } } | undefined)?.dsh?.parentSession === parent,
  )
  if (!child) throw new Error(`no child of ${parent} in ${JSON.stringify(sessions)}`)
  return child
}

/**
 * The agent for an editor with `fs/write_text_file` and the subagents capability, on the
 * conversation whose child writes a file.
 */
function capable(client: ReturnType<typeof editor>) {
  return {
    script: conversationModel(WITH_WRITE).script,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: true },
      subagents: {},
    } as acp.ClientCapabilities,
    setupClient: client.setupClient,
  }
}

describe('delegate end to end', () => {
  it('--no-subagents: the model is not offered delegate', async () => {
    const run = await start({
      script: conversationModel({ hi: [say('hello')] }).script,
      args: ['--no-subagents'],
    })
    const parent = await run.newSession()
    expect((await run.prompt(parent, 'hi')).stopReason).toBe('end_turn')
    expect(toolNamesOf(run.fake.requests[0])).toEqual([
      'edit_text_file',
      'find_files',
      'list_directory',
      'read_text_file',
      'run_command',
      'search_text',
      'write_text_file',
    ])
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
    // Its turn over, the child is let go (lock released) while the parent stays open.
    expect(existsSync(join(run.storeDir, `${child.sessionId}.lock`))).toBe(false)
    expect(existsSync(join(run.storeDir, `${parent}.lock`))).toBe(true)
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

/** The child writes a file: its permission request shows which variant of the wire is in use. */
const WITH_WRITE: Record<string, ModelMove[]> = {
  [REMEMBER]: [say('Noted.')],
  [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('Done.')],
  [TASK]: [
    { calls: [{ id: 'call_w', name: 'write_text_file', arguments: { path: 'word.txt', content: 'kiwi' } }] },
    say('kiwi'),
  ],
}

function editor() {
  const asked: acp.RequestPermissionRequest[] = []
  const writes: acp.WriteTextFileRequest[] = []
  return {
    asked,
    writes,
    setupClient: (app: acp.ClientApp) => {
      app.onRequest('session/request_permission', ({ params }) => {
        asked.push(params)
        return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
      })
      app.onRequest('fs/write_text_file', ({ params }) => {
        writes.push(params)
        return {}
      })
    },
  }
}

describe('what the editor sees', () => {
  it('without the subagents capability: only the parent’s tool call, its updates naming the child, permission on the parent', async () => {
    const client = editor()
    const run = await start({
      script: conversationModel(WITH_WRITE).script,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: true } },
      setupClient: client.setupClient,
    })
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    const from = run.agent.updates.length
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const messages = outgoing(run.agent.audit.entries)
    expect(
      messages.filter((m) => (m.params as { sessionId?: string })?.sessionId === child.sessionId),
    ).toEqual([])
    expect(JSON.stringify(messages)).not.toContain('subagent_update')
    const updates = run.agent.updates.slice(from)
    const delegateUpdates = updates.filter(
      (n) =>
        (n.update as { toolCallId?: string }).toolCallId === 'call_d' &&
        n.update.sessionUpdate === 'tool_call_update',
    )
    const progress = delegateUpdates.filter((n) => (n.update as { status?: string }).status === 'in_progress')
    expect(progress.map((n) => (n.update as { title?: string }).title)).toEqual(
      progress.map(() => 'Subagent: Recall'),
    )
    expect(progress.map((n) => (n.update as { _meta?: unknown })._meta)).toEqual(
      progress.map(() => ({ dsh: { subagent: { sessionId: child.sessionId } } })),
    )
    const texts = progress.map(
      (n) => (n.update as { content: { content: { text: string } }[] }).content[0]?.content.text,
    )
    expect(texts).toEqual([
      `Subagent ${child.sessionId} started: ${TASK}`,
      'Running: Write word.txt',
      'Done: Write word.txt',
    ])
    expect(delegateUpdates.at(-1)?.update).toMatchObject({ status: 'completed' })
    expect(client.asked).toEqual([
      expect.objectContaining({
        sessionId: parent,
        toolCall: expect.objectContaining({
          toolCallId: 'call_d',
          title: `Subagent Recall (${child.sessionId}): Write word.txt`,
          _meta: { dsh: { subagent: { sessionId: child.sessionId, toolCallId: 'call_w' } } },
        }),
      }),
    ])
    expect(client.writes.map((w) => w.sessionId)).toEqual([parent])
    await expectCleanExit(run)
  })

  it('with the subagents capability: subagent_update on the parent before any child traffic, then the child’s own updates and requests', async () => {
    const client = editor()
    const run = await start(capable(client))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const messages = outgoing(run.agent.audit.entries)
    const naming = messages.findIndex((m) => JSON.stringify(m).includes(child.sessionId))
    expect(messages[naming]).toMatchObject({
      method: 'session/update',
      params: {
        sessionId: parent,
        update: {
          sessionUpdate: 'subagent_update',
          sessionId: child.sessionId,
          title: 'Recall',
          description: TASK,
          state: { state: 'running' },
        },
      },
    })
    const childUpdates = run.agent.updates.filter((n) => n.sessionId === child.sessionId)
    expect(childUpdates.map((n) => n.update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'tool_call',
      'tool_call_update', // in_progress
      'tool_call_update',
      'agent_message_chunk',
    ])
    const subagentUpdates = run.agent.updates.filter((n) => n.update.sessionUpdate === 'subagent_update')
    expect(subagentUpdates.map((n) => [n.sessionId, (n.update as { state?: unknown }).state])).toEqual([
      [parent, { state: 'running' }],
      [parent, { state: 'idle', stopReason: 'end_turn' }],
    ])
    expect(client.asked).toEqual([
      expect.objectContaining({
        sessionId: child.sessionId,
        toolCall: expect.objectContaining({ toolCallId: 'call_w', title: 'Write word.txt' }),
      }),
    ])
    expect(client.writes.map((w) => w.sessionId)).toEqual([child.sessionId])
    expect(agentRequests(run.agent.audit.entries, 'session/request_permission')).toHaveLength(1)
    await expectCleanExit(run)
  })
})

describe('session/load of a parent that delegated, with the subagents capability', () => {
  const kindOf = (n: acp.SessionNotification) => n.update.sessionUpdate
  /** From the parent's delegate tool_call to its result: what a client saw of the delegation. */
  const delegation = (updates: readonly acp.SessionNotification[]) => {
    const isDelegate = (n: acp.SessionNotification) =>
      (n.update as { toolCallId?: string }).toolCallId === 'call_d'
    const first = updates.findIndex((n) => isDelegate(n) && kindOf(n) === 'tool_call')
    const last = updates.findLastIndex(
      (n) => isDelegate(n) && (n.update as { status?: string }).status === 'completed',
    )
    return updates.slice(first, last + 1)
  }

  it('after a restart the replay shows what the client saw live: subagent_update, the child’s own updates, subagent_update idle; the same updates in the same order', async () => {
    const client = editor()
    const run = await start(capable(client))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    const from = run.agent.updates.length
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const live = delegation(run.agent.updates.slice(from))

    await run.restart()
    const before = run.agent.updates.length
    await run.agent.agent.request('session/load', { sessionId: parent, cwd: run.cwd, mcpServers: [] })
    const replayed = delegation(run.agent.updates.slice(before))
    // A replay shows each tool call's end, not the live `in_progress` step (as every load does).
    const expected = live.filter(
      (n) => !(n.sessionId === child.sessionId && (n.update as { status?: string }).status === 'in_progress'),
    )
    expect(replayed).toEqual(expected)
    expect(replayed.map((n) => [n.sessionId === parent ? 'parent' : 'child', kindOf(n)])).toEqual([
      ['parent', 'tool_call'],
      ['parent', 'subagent_update'],
      ['parent', 'tool_call_update'],
      ['child', 'user_message_chunk'],
      ['child', 'tool_call'],
      ['child', 'tool_call_update'],
      ['child', 'agent_message_chunk'],
      ['parent', 'subagent_update'],
      ['parent', 'tool_call_update'],
    ])
    expect((replayed[7]?.update as { state?: unknown } | undefined)?.state).toEqual({
      state: 'idle',
      stopReason: 'end_turn',
    })
    // Nothing was asked or written again, and the child was only read, not loaded (no lock taken).
    expect(client.asked).toHaveLength(1)
    expect(existsSync(join(run.storeDir, `${child.sessionId}.lock`))).toBe(false)
    await expectCleanExit(run)
  })

  it('a child whose file is gone or corrupt: the replay completes, the child’s state `unknown` with the reason', async () => {
    const run = await start(capable(editor()))
    const parent = await run.newSession()
    await run.prompt(parent, REMEMBER)
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')
    const child = await childOf(run, parent)
    const childFile = join(run.storeDir, `${child.sessionId}.jsonl`)
    const lines = readFileSync(childFile, 'utf8').split('\n')
    const seed = (child._meta as { dsh: { seedLength: number } }).dsh.seedLength

    const stateAfterLoad = async () => {
      await run.restart()
      const before = run.agent.updates.length
      const answer = await run.agent.agent.request('session/load', {
        sessionId: parent,
        cwd: run.cwd,
        mcpServers: [],
      })
      expect(answer.configOptions).toBeDefined()
      const replayed = delegation(run.agent.updates.slice(before))
      expect(replayed.map(kindOf)).toContain('subagent_update')
      const subagentUpdates = replayed.filter((n) => kindOf(n) === 'subagent_update')
      expect(subagentUpdates.map((n) => n.sessionId)).toEqual([parent, parent])
      expect(replayed.at(-1)?.update).toMatchObject({ toolCallId: 'call_d', status: 'completed' })
      return {
        replayed,
        state: (
          subagentUpdates[1]?.update as { state?: { _meta?: { dsh?: { reason?: string } } } } | undefined
        )?.state,
      }
    }

    // A bad line inside the child's delegated turn (not its last): what came before it is shown.
    writeFileSync(childFile, [...lines.slice(0, seed + 3), '{not json', ...lines.slice(seed + 3)].join('\n'))
    const corrupt = await stateAfterLoad()
    expect(corrupt.state).toMatchObject({ state: 'unknown' })
    expect(corrupt.state?._meta?.dsh?.reason).toContain(
      `the log of subagent ${child.sessionId} could not be read`,
    )
    expect(corrupt.state?._meta?.dsh?.reason).toContain(`:${seed + 4}:`)
    expect(corrupt.replayed.filter((n) => n.sessionId === child.sessionId).map(kindOf)).toEqual([
      'user_message_chunk',
    ])

    rmSync(childFile)
    const gone = await stateAfterLoad()
    expect(gone.state).toMatchObject({ state: 'unknown' })
    expect(gone.state?._meta?.dsh?.reason).toContain(`session ${child.sessionId} not found`)
    expect(gone.replayed.filter((n) => n.sessionId === child.sessionId)).toEqual([])
    await expectCleanExit(run)
  })
})
