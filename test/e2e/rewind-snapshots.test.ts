import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REWIND_WIRE_SCHEMA, type RewindWireDef, rewindWireErrors } from '../../src/acp/rewind/wire-schema.js'
import type { AgentProcess } from '../support/agent-process.js'
import { answerText, newSession, prompt, text } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario, waitForUpdate } from '../support/snapshot-scenario.js'
import { readSnapshotTranscripts } from '../support/snapshot-wire.js'

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`

/** The messageIds the agent sent for `sessionId`: each prompt's user message and each answer's. */
function messageIds(agent: AgentProcess, sessionId: string): { user: string[]; agent: string[] } {
  const user: string[] = []
  const answers: string[] = []
  for (const n of agent.updates) {
    if (n.sessionId !== sessionId) continue
    const update = n.update as { sessionUpdate: string; messageId?: string }
    const list =
      update.sessionUpdate === 'user_message_chunk'
        ? user
        : update.sessionUpdate === 'agent_message_chunk'
          ? answers
          : undefined
    if (list && update.messageId && !list.includes(update.messageId)) list.push(update.messageId)
  }
  return { user, agent: answers }
}

/** The user message ids of `sessionId` as `session/load` replays them (live chunks carry only answers). */
async function replayedIds(
  agent: AgentProcess,
  sessionId: string,
): Promise<{ user: string[]; agent: string[] }> {
  const from = agent.updates.length
  await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
  const replay = { updates: agent.updates.slice(from) } as AgentProcess
  return messageIds(replay, sessionId)
}

async function rewind<T = Record<string, unknown>>(agent: AgentProcess, params: unknown): Promise<T> {
  return agent.agent.request<T>('_session/rewind', params)
}

async function rejection(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise
  } catch (error) {
    return error as { code: number; message: string }
  }
  throw new Error('expected a rejection')
}

describe('rewind (transcript snapshots)', () => {
  it('rewind-air: the JetBrains AIR _session/rewind, its guards, and a restart that replays the shortened history', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      const init = await agent.initialize({ _meta: { jetbrains: { air: { version: 1, capabilities: [] } } } })
      expect(init._meta).toMatchObject({
        sessionRewind: { version: 1, method: '_session/rewind' },
        jetbrains: { air: { version: 1, capabilities: ['sessionRewind'] } },
      })
      const sessionId = await newSession(agent)
      for (const text of ['first question', 'second question', 'third question'])
        await prompt(agent, sessionId, text)
      const firstAnswer = answerTextOf(agent, sessionId, 0)
      const ids = await replayedIds(agent, sessionId)
      expect(ids.user).toHaveLength(3)
      const before = {
        messageId: ids.user[1],
        messageFingerprint: sha256('second question'),
        messageOccurrence: 1,
      }
      const resumeAt = { messageId: ids.agent[0], messageFingerprint: sha256(firstAnswer) }
      // Guards that do not match are invalid params; nothing changes.
      expect(
        (
          await rejection(
            rewind(agent, {
              sessionId,
              beforeMessage: { ...before, messageFingerprint: sha256('other') },
              resumeAtMessage: resumeAt,
            }),
          )
        ).code,
      ).toBe(-32602)
      expect((await rejection(rewind(agent, { sessionId, beforeMessage: before }))).code).toBe(-32602)
      expect(
        (
          await rejection(
            rewind(agent, { sessionId, beforeMessage: before, resumeAtMessage: { messageId: ids.agent[1] } }),
          )
        ).code,
      ).toBe(-32602)
      expect(
        (await rejection(rewind(agent, { sessionId, beforeMessage: { messageId: ids.agent[0] } }))).code,
      ).toBe(-32602)
      expect(
        (await rejection(rewind(agent, { sessionId, beforeMessage: before, messageId: ids.user[1] }))).code,
      ).toBe(-32602)
      expect((await rejection(rewind(agent, { sessionId: 'ses_404', beforeMessage: before }))).code).toBe(
        -32002,
      )
      expect(await rewind(agent, { sessionId, beforeMessage: before, resumeAtMessage: resumeAt })).toEqual({
        rewound: true,
        sessionId,
      })
      // A second rewind, to before the first prompt, found by its fingerprint alone (its id is not known).
      expect(
        await rewind(agent, {
          sessionId,
          beforeMessage: {
            messageId: 'gone',
            messageFingerprint: sha256('first question'),
            messageOccurrence: 1,
          },
        }),
      ).toEqual({ rewound: true, sessionId })
      await prompt(agent, sessionId, 'a new start')
      expect(await agent.stop()).toBe(0)

      const after = s.start({ idPrefix: 'ses_r' })
      await after.initialize()
      const replay = await replayedIds(after, sessionId)
      expect(replay.user).toHaveLength(1)
      expect(answerText(after, sessionId)).toContain('a new start')
      expect(answerText(after, sessionId)).not.toContain('second question')
      // Branches are archived: the default listing leaves them out, the archived ones hold both.
      const listed = await after.agent.request('session/list', {})
      expect(listed.sessions.map((row) => row.sessionId)).toEqual([sessionId])
      const { sessions } = (await after.agent.request('session/list', { archived: 'only' } as never)) as {
        sessions: { sessionId: string; title?: string | null }[]
      }
      const branches = sessions.filter((row) => row.sessionId !== sessionId)
      expect(branches.map((row) => row.title).sort()).toEqual([
        'first question (before rewind)',
        'first question (before rewind)',
      ])
    })
    await expectScenarioSnapshot('rewind-air', output)
  })

  it('rewind-interrupt: a running turn is refused, unless interruptIfRunning: then it is cancelled (recorded) and rewound away', async () => {
    const slow = [[{ text: 'working on it' }, { delayMs: 600_000 }, { text: ' (never said)' }]]
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args: ['--model', s.scriptModel('model.json', [[[{ text: 'quick answer' }]], slow])],
      })
      await agent.initialize()
      const sessionId = await newSession(agent)
      await prompt(agent, sessionId, 'quick')
      const running = agent.agent.request('session/prompt', { sessionId, prompt: [text('slow')] })
      await waitForUpdate(
        agent,
        (n) => (n.update as { content?: { text?: string } }).content?.text === 'working on it',
      )
      const ids = messageIds(agent, sessionId)
      const quickAnswer = ids.agent[0] as string
      // The running turn's prompt is msg_<its user/message seq>: 8 (the first turn took 1..6, turn/start is 7).
      const before = { messageId: 'msg_8', messageFingerprint: sha256('slow') }
      const guard = { messageId: quickAnswer, messageFingerprint: sha256('quick answer') }
      expect(await rewind(agent, { sessionId, beforeMessage: before, resumeAtMessage: guard })).toMatchObject(
        { rewound: false },
      )
      // Busy comes before the guards: a wrong fingerprint is not even looked at.
      expect(
        await rewind(agent, { sessionId, beforeMessage: { ...before, messageFingerprint: sha256('x') } }),
      ).toMatchObject({ rewound: false })
      expect(
        await rewind(agent, {
          sessionId,
          beforeMessage: before,
          resumeAtMessage: guard,
          interruptIfRunning: true,
        }),
      ).toEqual({ rewound: true, sessionId })
      expect((await running).stopReason).toBe('cancelled')
      const from = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      expect(answerText(agent, sessionId, from)).toBe('quick answer')
    })
    await expectScenarioSnapshot('rewind-interrupt', output)
  })

  it('rewind-modes: _session/rewind_points, a dry run, a refused file half that skips the conversation, a file restore and a conversation rewind', async () => {
    const write = (path: string, content: string) => ({
      toolCall: { name: 'write_text_file', input: { path, content } },
    })
    const command = { toolCall: { name: 'run_command', input: { command: 'echo by a command > notes.txt' } } }
    const turns = [
      [[{ text: 'nothing to change' }]],
      [[write('notes.txt', 'two\n')], [{ text: 'wrote notes.txt' }]],
      [[write('notes.txt', 'three\n')], [{ text: 'rewrote notes.txt' }]],
      [[command], [{ text: 'a command changed notes.txt' }]],
      [[write('notes.txt', 'three\n')], [{ text: 'put notes.txt back' }]],
    ]
    const output = await runScenario(async (s) => {
      const agent = s.start({
        args: ['--model', s.scriptModel('model.json', turns), '--sandbox', 'off'],
        setupClient: (app) => {
          app.onRequest('session/request_permission', () => ({
            outcome: { outcome: 'selected', optionId: 'allow_once' },
          }))
        },
      })
      const init = await agent.initialize()
      expect(init._meta).toMatchObject({
        claudeCode: { rewindSession: { modes: ['files', 'conversation', 'both'] } },
      })
      expect(init._meta).not.toHaveProperty('jetbrains')
      const sessionId = await newSession(agent)
      for (const text of ['one', 'two', 'three', 'four']) await prompt(agent, sessionId, text)
      const notes = join(agent.cwd, 'notes.txt')
      expect(readFileSync(notes, 'utf8')).toBe('by a command\n')
      const { points } = await agent.agent.request<{
        points: { messageId: string; resumeAtMessageId: string | null; text: string; index: number }[]
      }>('_session/rewind_points', { sessionId })
      expect(points.map((p) => [p.text, p.index, p.resumeAtMessageId === null])).toEqual([
        ['one', 1, true],
        ['two', 2, false],
        ['three', 3, false],
        ['four', 4, false],
      ])
      const messageId = (points[1] as { messageId: string }).messageId
      expect(await rewind(agent, { sessionId, messageId, mode: 'conversation', dryRun: true })).toMatchObject(
        {
          conversation: { rewound: false },
        },
      )
      // A command changed notes.txt behind the file tools: the file half is refused, and `both`
      // leaves the conversation alone.
      const both = await rewind<{ files: { canRewind: boolean }; conversation: { rewound: boolean } }>(
        agent,
        {
          sessionId,
          messageId,
          mode: 'both',
        },
      )
      expect(both.files.canRewind).toBe(false)
      expect(both.conversation).toMatchObject({ rewound: false })
      expect(readFileSync(notes, 'utf8')).toBe('by a command\n')
      // Once the file tools wrote it again, the file half (the default mode) removes the file turn
      // two created, and says that commands ran.
      await prompt(agent, sessionId, 'five')
      const dry = await rewind<Record<string, { canRewind?: boolean }>>(agent, {
        sessionId,
        messageId,
        dryRun: true,
      })
      expect(Object.keys(dry)).toEqual(['files'])
      expect(dry.files).toMatchObject({ canRewind: true, commandsRan: true })
      expect(existsSync(notes)).toBe(true)
      const files = await rewind<Record<string, { canRewind?: boolean }>>(agent, { sessionId, messageId })
      expect(Object.keys(files)).toEqual(['files'])
      expect(existsSync(notes)).toBe(false)
      const done = await rewind<{
        conversation: { rewound: boolean; branchSessionId: string }
      }>(agent, { sessionId, messageId, mode: 'conversation' })
      expect(done.conversation).toMatchObject({ rewound: true, branchSessionId: 'ses_2' })
      const again = await agent.agent.request<{ points: unknown[] }>('_session/rewind_points', { sessionId })
      expect(again.points).toHaveLength(1)
      expect(
        (await rejection(rewind(agent, { sessionId, messageId: 'msg_999', mode: 'conversation' }))).code,
      ).toBe(-32602)
      expect((await rejection(rewind(agent, { sessionId, messageId, mode: 'everything' }))).code).toBe(-32602)
      // The branch holds the history as it was, and loads.
      const from = agent.updates.length
      await agent.agent.request('session/load', { sessionId: 'ses_2', cwd: agent.cwd, mcpServers: [] })
      expect(answerText(agent, 'ses_2', from)).toContain('rewrote notes.txt')
    })
    await expectScenarioSnapshot('rewind-modes', output)
  })

  it('rewind-command: /rewind undoes the last prompt (and itself); /rewind 5 says what there is', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const sessionId = await newSession(agent)
      await prompt(agent, sessionId, 'keep this')
      await prompt(agent, sessionId, 'undo this')
      let from = agent.updates.length
      await prompt(agent, sessionId, '/rewind 5')
      expect(answerText(agent, sessionId, from)).toContain('Cannot undo 5 prompts: there are 2')
      from = agent.updates.length
      await prompt(agent, sessionId, '/rewind')
      expect(answerText(agent, sessionId, from)).toContain('the conversation goes on from before "undo this"')
      from = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      const replayed = answerText(agent, sessionId, from)
      expect(replayed).toContain('keep this')
      expect(replayed).not.toContain('undo this')
      expect(replayed).not.toContain('/rewind')
    })
    await expectScenarioSnapshot('rewind-command', output)
  })
})

/** The text of the `index`-th answer streamed for `sessionId`. */
function answerTextOf(agent: AgentProcess, sessionId: string, index: number): string {
  const ids = messageIds(agent, sessionId).agent
  return agent.updates
    .filter((n) => n.sessionId === sessionId)
    .map(
      (n) =>
        n.update as { sessionUpdate: string; messageId?: string; content?: { type: string; text?: string } },
    )
    .filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.messageId === ids[index])
    .map((u) => u.content?.text ?? '')
    .join('')
}

const DEFS: Readonly<Record<string, { params: RewindWireDef[]; result: RewindWireDef[] }>> = {
  '_session/rewind': {
    params: ['airRewindParams', 'modeRewindParams'],
    result: ['airRewindResult', 'modeRewindResult'],
  },
  '_session/rewind_points': { params: ['rewindPointsParams'], result: ['rewindPointsResult'] },
}

describe('the rewind methods in every stored snapshot transcript', () => {
  it('are valid against schemas/rewind.schema.json (but the bad input sent on purpose), and initialize answers the advertisement', () => {
    const problems: string[] = []
    let seen = 0
    for (const line of readSnapshotTranscripts()) {
      const method = typeof line.msg.method === 'string' ? line.msg.method : line.answers
      if (method === 'initialize' && line.answers) {
        const meta = (line.msg.result as { _meta?: unknown } | undefined)?._meta
        const errors = rewindWireErrors('initializeMeta', meta)
        if (errors.length > 0) problems.push(`${line.scenario}:${line.line}: ${errors.join('; ')}`)
      }
      const defs = method === undefined ? undefined : DEFS[method]
      if (!defs) continue
      seen++
      const isResult = line.answers !== undefined
      if (isResult && Object.hasOwn(line.msg, 'error')) continue
      const value = isResult ? line.msg.result : line.msg.params
      const valid = (isResult ? defs.result : defs.params).some(
        (def) => rewindWireErrors(def, value).length === 0,
      )
      if (!valid && (isResult || !String(line.msg.id ?? '').length))
        problems.push(`${line.scenario}:${line.line}`)
      if (!valid && !isResult) seen-- // bad input sent on purpose: counted apart
    }
    expect(problems).toEqual([])
    expect(seen).toBeGreaterThan(10)
  })

  it('the published schema file is the one the agent validates with', async () => {
    const { readFileSync } = await import('node:fs')
    const published = JSON.parse(
      readFileSync(new URL('../../schemas/rewind.schema.json', import.meta.url), 'utf8'),
    )
    const { $schema, ...rest } = published
    expect($schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(rest).toEqual(JSON.parse(JSON.stringify(REWIND_WIRE_SCHEMA)))
  })
})
