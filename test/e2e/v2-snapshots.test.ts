import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2/unstable'
import { describe, expect, it } from 'vitest'
import { expectV2Snapshot, runV2Scenario, type V2Scenario } from '../support/v2/v2-scenario.js'

/**
 * ACP v2 transcript snapshots (test/snapshots-v2/*, beside the v1 ones in test/snapshots): what a
 * v2 editor sees, driven by the SDK's v2 client, every agent line checked against the SDK's v2
 * schema. A changed file is a behaviour change: read it as an editor's author would.
 */

const idle = (u: Record<string, unknown>) => u.sessionUpdate === 'state_update' && u.state === 'idle'
const text = (value: string) => [{ type: 'text' as const, text: value }]
/** The client allows each permission once. */
const allowOnce = (app: v2.ClientApp) =>
  app.onRequest('session/request_permission', () => ({
    outcome: { outcome: 'selected', optionId: 'allow_once' },
  }))

describe('ACP v2 transcript snapshots', () => {
  it('v2-tool-edit-diff: an edit asks permission (requires_action), writes to disk itself, shows a git_patch diff; a replay shows it again', async () => {
    const output = await runV2Scenario(async (s) => {
      const file = s.projectFile('app.ts', 'const answer = 41\nexport default answer\n')
      const model = s.scriptModel([
        [
          [
            {
              toolCall: {
                id: 'call_e',
                name: 'edit_text_file',
                input: {
                  path: file,
                  edits: [{ oldText: 'const answer = 41', newText: 'const answer = 42' }],
                },
              },
            },
          ],
          [{ text: 'Fixed the answer.' }],
        ],
      ])
      const agent = s.start({ args: ['--model', model], setupClient: allowOnce })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('fix the answer in app.ts') })
      await agent.until(idle)
      expect(readFileSync(file, 'utf8')).toContain('const answer = 42')
      await agent.agent.request('session/resume', { sessionId, cwd: s.cwd, replayFrom: { type: 'start' } })
    })
    await expectV2Snapshot('v2-tool-edit-diff', output)
  })

  it('v2-cancel: a running turn cancelled is confirmed by idle with cancelled', async () => {
    const output = await runV2Scenario(async (s) => {
      const model = s.scriptModel([[[{ delayMs: 60000 }, { text: 'too late' }]]])
      const agent = s.start({ args: ['--model', model] })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('take your time') })
      await agent.until((u) => u.sessionUpdate === 'state_update' && u.state === 'running')
      await agent.agent.notify('session/cancel', { sessionId })
      expect(await agent.until(idle)).toMatchObject({ stopReason: 'cancelled' })
    })
    await expectV2Snapshot('v2-cancel', output)
  })

  it('v2-fork-story: two turns, a fork before the second user message, the child resumed with a replay and prompted', async () => {
    const output = await runV2Scenario(async (s) => {
      const model = s.scriptModel([[[{ text: 'First answer.' }]], [[{ text: 'Second answer.' }]]])
      const agent = s.start({ args: ['--model', model] })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('first question') })
      await agent.until(idle)
      const mark = agent.audit.updates().length
      const second = await agent.agent.request('session/prompt', {
        sessionId,
        prompt: text('second question'),
      })
      await agent.until(idle, mark)
      const child = (await agent.agent.request(
        'session/fork' as never,
        {
          sessionId,
          cwd: s.cwd,
          _meta: { dsh: { messageId: second.messageId } },
        } as never,
      )) as { sessionId: string }
      await agent.agent.request('session/resume', {
        sessionId: child.sessionId,
        cwd: s.cwd,
        replayFrom: { type: 'start' },
      })
      const childMark = agent.audit.updates().length
      await agent.agent.request('session/prompt', {
        sessionId: child.sessionId,
        prompt: text('another second question'),
      })
      await agent.until(idle, childMark)
    })
    await expectV2Snapshot('v2-fork-story', output)
  })

  it('v2-ask-user: a question (elicitation) waits as requires_action, back to running once answered', async () => {
    const output = await runV2Scenario(async (s) => {
      const ask = { question: 'Which database?', options: ['SQLite', 'Postgres'] }
      const model = s.scriptModel([
        [[{ toolCall: { id: 'call_q', name: 'ask_user', input: ask } }], [{ text: 'Postgres it is.' }]],
      ])
      const agent = s.start({
        args: ['--model', model],
        setupClient: (app) =>
          app.onRequest('elicitation/create', () => ({ action: 'accept', content: { answer: 'Postgres' } })),
      })
      await agent.initialize({ elicitation: { form: {} } })
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('set up the database') })
      await agent.until(idle)
      const states = agent.audit
        .updates()
        .filter((u) => u.sessionUpdate === 'state_update')
        .map((u) => u.state)
      expect(states).toEqual(['running', 'requires_action', 'running', 'idle'])
    })
    await expectV2Snapshot('v2-ask-user', output)
  })

  it('v2-steering: a prompt sent while a permission waits is inserted after the tool result, answered with its messageId, shown whole; one idle; a replay shows it where it entered', async () => {
    const output = await runV2Scenario(async (s) => {
      const file = join(s.cwd, 'a.txt')
      const model = s.scriptModel([
        [[{ toolCall: { id: 'call_w', name: 'write_text_file', input: { path: file, content: 'blue\n' } } }]],
        // The script model reads the steered message as the start of its next scripted turn.
        [[{ text: 'Wrote a.txt, in blue.' }]],
      ])
      let asked!: () => void
      const wasAsked = new Promise<void>((done) => {
        asked = done
      })
      let allow!: () => void
      const allowed = new Promise<void>((done) => {
        allow = done
      })
      const agent = s.start({
        args: ['--model', model],
        setupClient: (app) =>
          app.onRequest('session/request_permission', async () => {
            asked()
            await allowed
            return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
          }),
      })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('write a.txt') })
      await wasAsked
      const steering = agent.agent.request('session/prompt', { sessionId, prompt: text('make it blue') })
      // Written before the permission's answer: the server reads (and offers) it first.
      allow()
      await steering
      expect(await agent.until(idle)).toMatchObject({ stopReason: 'end_turn' })
      await agent.agent.request('session/resume', { sessionId, cwd: s.cwd, replayFrom: { type: 'start' } })
    })
    await expectV2Snapshot('v2-steering', output)
  })

  it('v2-subagent: a delegation shows subagent_update on the parent, then the child’s own turn (state_update, whole prompt, chunks) under its id; a replay shows the same', async () => {
    const output = await runV2Scenario(async (s) => {
      const delegate = { id: 'call_d', name: 'delegate', input: { task: 'say hi', title: 'Greeter' } }
      // The script model plays the child (one user message, like the parent) the same turn: its
      // delegate call is refused there (a subagent does not delegate), then it answers.
      const model = s.scriptModel([[[{ toolCall: delegate }], [{ text: 'The helper said hi.' }]]])
      const agent = s.start({ args: ['--model', model] })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('ask a helper to say hi') })
      // The child's idle comes first, then the parent's: the replay is asked for after both.
      await agent.until(idle)
      const childIdle = agent.audit.updates().findIndex(idle)
      expect(await agent.until(idle, childIdle + 1)).toMatchObject({ stopReason: 'end_turn' })
      await agent.agent.request('session/resume', { sessionId, cwd: s.cwd, replayFrom: { type: 'start' } })
    })
    await expectV2Snapshot('v2-subagent', output)
  })

  it('v2-display-terminal: run_command asks permission, shows its own terminal (terminal_update, tool_call_content_chunk, terminal_output_chunk, exitStatus), then the result; a replay shows the result as text; the same on a machine without a sandbox', async () => {
    const command = "printf 'checking 3 files\\nall clean\\n'"
    const scenario = async (s: V2Scenario) => {
      const model = s.scriptModel([
        [[{ toolCall: { id: 'call_r', name: 'run_command', input: { command } } }], [{ text: 'All clean.' }]],
      ])
      const agent = s.start({ args: ['--model', model], setupClient: allowOnce })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      await agent.agent.request('session/prompt', { sessionId, prompt: text('check the files') })
      expect(await agent.until(idle)).toMatchObject({ stopReason: 'end_turn' })
      await agent.agent.request('session/resume', { sessionId, cwd: s.cwd, replayFrom: { type: 'start' } })
    }
    const output = await runV2Scenario(scenario)
    await expectV2Snapshot('v2-display-terminal', output)
    // Where bubblewrap is missing, the result says so; the snapshot reads the same (normalized).
    const unconfined = await runV2Scenario(scenario, {
      env: { PATH: join(tmpdir(), 'dsh-no-bwrap') },
    })
    expect(unconfined.problems).toEqual([])
    expect(unconfined.transcript).toBe(output.transcript)
    expect([...unconfined.storeFiles]).toEqual([...output.storeFiles])
  })

  it('v2-plan-compact-rewind: a plan as plan_update, /compact as compaction_update, a rewind (claude-agent-acp shape) before the second prompt; a replay shows what is left', async () => {
    const output = await runV2Scenario(async (s) => {
      const agent = s.start({ args: ['--model', 'echo'] })
      await agent.initialize()
      const { sessionId } = await agent.agent.request('session/new', { cwd: s.cwd })
      const turn = async (prompt: string) => {
        const from = agent.audit.updates().length
        const ack = await agent.agent.request('session/prompt', { sessionId, prompt: text(prompt) })
        await agent.until(idle, from)
        return ack.messageId
      }
      await turn('plan: read the code; write the fix')
      const second = await turn('second question')
      await turn('/compact')
      await agent.agent.request(
        '_session/rewind' as never,
        { sessionId, messageId: second, mode: 'conversation' } as never,
      )
      await agent.agent.request('session/resume', { sessionId, cwd: s.cwd, replayFrom: { type: 'start' } })
    })
    await expectV2Snapshot('v2-plan-compact-rewind', output)
  })
})
