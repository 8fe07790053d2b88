import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { builtinTools } from '../../src/agent/builtin-tools.js'
import { UPDATE_PLAN_TOOL } from '../../src/agent/plan/update-plan-tool.js'
import { DELEGATE_TOOL } from '../../src/agent/subagents/index.js'
import { completionStream, type FakeReply } from '../support/fake-openai.js'
import { expectCleanExit, openAiAgents } from '../support/openai-agent.js'

/** The built-in tools offered to an editor that shows no forms (so not `ask_user`). */
const offeredBuiltins = () => builtinTools().filter((tool) => tool.offeredTo?.({}) ?? true)

/**
 * The session options reach the model server: the chosen model and reasoning effort are in the
 * next request body, `read-only` leaves the tools that change anything out of it, and
 * `accept-edits` writes without asking.
 */

const start = openAiAgents()
const MODELS = ['--model-name', 'fake-model-1,fake-model-2']

const toolNames = (body: { readonly [key: string]: unknown } | undefined) =>
  ((body?.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name)

/**
 * What the model is offered: every built-in tool a client without forms gets, then update_plan and
 * delegate; in read-only, those that change nothing (update_plan changes only the session).
 */
const EVERY_TOOL = [...offeredBuiltins().map((tool) => tool.spec.name), UPDATE_PLAN_TOOL, DELEGATE_TOOL]
const READ_ONLY_TOOLS = [
  ...offeredBuiltins()
    .filter((tool) => tool.effect === 'read')
    .map((tool) => tool.spec.name),
  UPDATE_PLAN_TOOL,
  DELEGATE_TOOL,
]

describe('session options with the openai provider', () => {
  it('model and reasoning effort apply from the next request; read-only offers no writing tool; a restart keeps them', async () => {
    const run = await start({ script: () => ({ stream: completionStream({ text: 'ok' }) }), args: MODELS })
    const sessionId = await run.newSession()
    await run.prompt(sessionId, 'one')
    const set = (configId: string, value: string) =>
      run.agent.agent.request('session/set_config_option', { sessionId, configId, value })
    await set('model', 'fake-model-2')
    await set('thought_level', 'high')
    await run.agent.agent.request('session/set_mode', { sessionId, modeId: 'read-only' })
    await run.prompt(sessionId, 'two')
    await set('thought_level', 'default')
    await run.prompt(sessionId, 'three')

    const [first, second, third] = run.fake.requests.map((r) => r.body)
    expect(first).toMatchObject({ model: 'fake-model-1' })
    expect(first).not.toHaveProperty('reasoning_effort')
    expect(toolNames(first)).toEqual(EVERY_TOOL)
    expect(second).toMatchObject({ model: 'fake-model-2', reasoning_effort: 'high' })
    // read-only: the tools that change nothing (delegate too: its child inherits the mode)
    expect(toolNames(second)).toEqual(READ_ONLY_TOOLS)
    expect(third).toMatchObject({ model: 'fake-model-2' })
    expect(third).not.toHaveProperty('reasoning_effort')

    await run.restart()
    const loaded = await run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers: [] })
    expect(loaded.modes?.currentModeId).toBe('read-only')
    await run.prompt(sessionId, 'four')
    expect(run.fake.requests[3]?.body).toMatchObject({ model: 'fake-model-2' })
    expect(toolNames(run.fake.requests[3]?.body)).toEqual(READ_ONLY_TOOLS)
    await expectCleanExit(run)
  })

  it('accept-edits writes without asking; ask asks; read-only refuses a write the model asks for anyway', async () => {
    const asked: acp.RequestPermissionRequest[] = []
    let call = 0
    const script = (): FakeReply => {
      call++
      if (call % 2 === 0) return { stream: completionStream({ text: 'done' }) }
      const content = `note ${call}\n`
      return {
        stream: completionStream({
          toolCalls: [
            {
              id: `w${call}`,
              name: 'write_text_file',
              arguments: JSON.stringify({ path: 'a.txt', content }),
            },
          ],
        }),
      }
    }
    const run = await start({
      script,
      setupClient: (app) => {
        app.onRequest('session/request_permission', ({ params }) => {
          asked.push(params)
          return { outcome: { outcome: 'selected', optionId: params.options[0]?.optionId ?? '' } }
        })
      },
    })
    const sessionId = await run.newSession()
    await run.agent.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' })
    await run.prompt(sessionId, 'write it')
    expect(asked).toEqual([])
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('note 1\n')

    await run.agent.agent.request('session/set_mode', { sessionId, modeId: 'ask' })
    await run.prompt(sessionId, 'write it again')
    expect(asked).toHaveLength(1)

    await run.agent.agent.request('session/set_mode', { sessionId, modeId: 'read-only' })
    await run.prompt(sessionId, 'and again')
    expect(asked).toHaveLength(1)
    expect(readFileSync(join(run.cwd, 'a.txt'), 'utf8')).toBe('note 3\n')
    const results = run.loggedEvents(sessionId).filter((e) => e.type === 'tool/result')
    expect(results.at(-1)?.data).toMatchObject({
      isError: true,
      output: expect.stringContaining('read-only'),
    })
    await expectCleanExit(run)
  })

  it('images: advertised and sent as image_url parts with --image-input; refused with -32602 without it', async () => {
    const image = { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' }
    const seeing = await start({
      script: () => ({ stream: completionStream({ text: 'a cat' }) }),
      args: ['--image-input'],
    })
    const sessionId = await seeing.newSession()
    await seeing.agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'what is this?' }, image],
    })
    const [request] = seeing.fake.requests
    const messages = request?.body?.messages as { role: string; content: unknown }[]
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
      ],
    })
    await expectCleanExit(seeing)

    const blind = await start({ script: () => ({ stream: completionStream({ text: 'no' }) }) })
    const other = await blind.newSession()
    await expect(
      blind.agent.agent.request('session/prompt', { sessionId: other, prompt: [image] }),
    ).rejects.toMatchObject({ code: -32602, data: { field: 'prompt[0]' } })
    expect(blind.fake.requests).toHaveLength(0)
    await expectCleanExit(blind)
  })
})
