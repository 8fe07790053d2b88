import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { FakeReply } from '../support/fake-openai.js'
import { expectCleanExit, type OpenAiAgent, openAiAgents } from '../support/openai-agent.js'
import { deferred, toolNamesOf, until } from '../support/openai-wire.js'
import { conversationModel, lastUserText, type ModelMove } from '../support/prefix-cache.js'
import { ASK, childOf, delegate, REMEMBER, say, TASK } from '../support/subagent-conversation.js'

/**
 * A subagent is never looser than its parent now (issue 28 #2), over stdio with the official
 * client: the user switches the parent from accept-edits to read-only with `session/set_mode`
 * during a turn; a child delegated afterwards (seeded from the turn before the switch) and a child
 * already running (waiting on a question) are both held to read-only.
 */

const start = openAiAgents()

const READ_ONLY_WRITE = 'Not run: the session is read-only, and write_text_file changes things.'
const writeWord: ModelMove = {
  calls: [{ id: 'call_w', name: 'write_text_file', arguments: { path: 'word.txt', content: 'kiwi' } }],
}
const runTrue: ModelMove = { calls: [{ id: 'call_c', name: 'run_command', arguments: { command: 'true' } }] }

const setMode = (run: OpenAiAgent, sessionId: string, modeId: string) =>
  run.agent.agent.request('session/set_mode', { sessionId, modeId })

const childResults = (run: OpenAiAgent, child: string) =>
  run
    .loggedEvents(child)
    .filter((e) => e.type === 'tool/result')
    .map((e) => e.data.output)

describe('a subagent under a parent switched to read-only', () => {
  it('switched during the turn, then delegating: the child is offered no write, and the one it tries is refused without asking', async () => {
    const gate = deferred()
    let heldOnce = 0
    const model = conversationModel(
      {
        [REMEMBER]: [say('Noted.')],
        [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('Done.')],
        [TASK]: [writeWord, say('kiwi')],
      },
      {
        // The parent's first request of the second turn waits while the user switches the mode.
        hold: (user, reply): FakeReply =>
          user === ASK && 'stream' in reply && !heldOnce++
            ? { stream: [{ until: gate.promise }, ...reply.stream] }
            : reply,
      },
    )
    const asked: acp.RequestPermissionRequest[] = []
    const run = await start({
      script: model.script,
      setupClient: (app) => {
        app.onRequest('session/request_permission', ({ params }) => {
          asked.push(params)
          return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
        })
      },
    })
    const parent = await run.newSession()
    await setMode(run, parent, 'accept-edits')
    expect((await run.prompt(parent, REMEMBER)).stopReason).toBe('end_turn')
    const prompting = run.prompt(parent, ASK)
    await until(() => run.fake.requests.some((r) => lastUserText(r.body) === ASK))
    await setMode(run, parent, 'read-only')
    gate.resolve()
    expect((await prompting).stopReason).toBe('end_turn')

    const child = await childOf(run, parent)
    const childFirst = run.fake.requests.find((r) => lastUserText(r.body) === TASK)
    expect(toolNamesOf(childFirst)).not.toContain('write_text_file')
    expect(childResults(run, child.sessionId)).toEqual([READ_ONLY_WRITE])
    expect(existsSync(join(run.cwd, 'word.txt'))).toBe(false)
    expect(asked).toEqual([])
    await expectCleanExit(run)
  })

  it('a running child waiting on a question: the switch reaches it, and its next write is refused', async () => {
    const model = conversationModel({
      [REMEMBER]: [say('Noted.')],
      [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('Done.')],
      [TASK]: [runTrue, writeWord, say('kiwi')],
    })
    const asked: acp.RequestPermissionRequest[] = []
    let run: OpenAiAgent | undefined
    let parent = ''
    run = await start({
      script: model.script,
      setupClient: (app) => {
        app.onRequest('session/request_permission', async ({ params }) => {
          asked.push(params)
          // While the child waits on this question, the user makes the parent read-only.
          if (run) await setMode(run, parent, 'read-only')
          return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
        })
      },
    })
    parent = await run.newSession()
    await setMode(run, parent, 'accept-edits')
    expect((await run.prompt(parent, REMEMBER)).stopReason).toBe('end_turn')
    expect((await run.prompt(parent, ASK)).stopReason).toBe('end_turn')

    const child = await childOf(run, parent)
    // One question (the child's command, shown on the parent's delegate call to this client).
    expect(asked).toHaveLength(1)
    expect(childResults(run, child.sessionId)).toEqual([
      'Not run: the session is read-only, and run_command changes things.',
      READ_ONLY_WRITE,
    ])
    expect(existsSync(join(run.cwd, 'word.txt'))).toBe(false)
    await expectCleanExit(run)
  })
})
