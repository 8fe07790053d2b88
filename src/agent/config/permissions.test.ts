import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { SessionEvent } from '../../session/index.js'
import { builtinTools } from '../builtin-tools.js'
import { UPDATE_PLAN_TOOL } from '../plan/update-plan-tool.js'
import { createScriptProvider } from '../providers/script.js'
import { parseModelScript } from '../providers/script-format.js'
import { DELEGATE_TOOL } from '../subagents/delegate-tool.js'
import { editTextFileTool, readTextFileTool, runCommandTool } from '../tools/index.js'
import type { PermissionRequest } from '../types.js'
import {
  decidePermission,
  offeredIn,
  PERMISSION_ALWAYS_EVENT,
  type PermissionAnswer,
  type SessionMode,
  standingAnswers,
  standingAnswersOf,
} from './permissions.js'

describe('the permission policy', () => {
  const none = new Map<string, boolean>()
  it.each<[SessionMode, string, string]>([
    ['ask', 'read_text_file', 'allow'],
    ['ask', 'edit_text_file', 'ask'],
    ['ask', 'run_command', 'ask'],
    ['accept-edits', 'read_text_file', 'allow'],
    ['accept-edits', 'edit_text_file', 'allow'],
    ['accept-edits', 'write_text_file', 'allow'],
    ['accept-edits', 'run_command', 'ask'],
    ['read-only', 'search_text', 'allow'],
    ['read-only', 'edit_text_file', 'refuse'],
    ['read-only', 'run_command', 'refuse'],
  ])('%s mode: %s is %s', (mode, name, verdict) => {
    const tool = builtinTools().find((t) => t.spec.name === name)
    if (!tool) throw new Error(name)
    expect(decidePermission(tool, name, mode, none).verdict).toBe(verdict)
  })

  it('read-only offers only tools that change nothing', () => {
    const offered = builtinTools().filter((tool) => offeredIn('read-only', tool))
    expect(offered).toEqual(builtinTools().filter((tool) => tool.effect === 'read'))
    expect(offered.map((t) => t.spec.name)).toContain(readTextFileTool.spec.name)
    expect(offered.map((t) => t.spec.name)).not.toContain(editTextFileTool.spec.name)
    expect(builtinTools().every((tool) => offeredIn('ask', tool))).toBe(true)
  })

  it('a standing answer decides without asking, per scope; the latest answer for a scope wins', () => {
    const standing = new Map([
      ['edit_text_file', true],
      ['run_command:make', false],
    ])
    expect(decidePermission(editTextFileTool, 'edit_text_file', 'ask', standing).verdict).toBe('allow')
    expect(decidePermission(runCommandTool, 'run_command:make', 'ask', standing)).toEqual({
      verdict: 'refuse',
      reason: 'the user chose to always reject this',
    })
    expect(decidePermission(runCommandTool, 'run_command:make test', 'ask', standing).verdict).toBe('ask')
    expect(decidePermission(readTextFileTool, 'read_text_file', 'ask', standing).verdict).toBe('allow')
    const events: SessionEvent[] = [
      { seq: 1, type: PERMISSION_ALWAYS_EVENT, time: '', data: { tool: 'x', scope: 'x', allow: true } },
      { seq: 2, type: PERMISSION_ALWAYS_EVENT, time: '', data: { tool: 'x', scope: 'x', allow: false } },
    ]
    expect(standingAnswers(events)).toEqual(new Map([['x', false]]))
  })
})

describe('permissions in turns', () => {
  let ctx: Context | undefined
  let cwd: string
  beforeEach(async () => {
    cwd = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-perm-')))
  })
  afterEach(async () => {
    await ctx?.stop()
    ctx = undefined
    await rm(cwd, { recursive: true, force: true })
  })

  const writeTurn = (n: number) => [
    [{ toolCall: { name: 'write_text_file', input: { path: `f${n}.txt`, content: `${n}` } } }],
    [{ text: `turn ${n} done` }],
  ]

  function answering(answers: PermissionAnswer[]) {
    const asked: PermissionRequest[] = []
    return {
      asked,
      client: {
        requestPermission: async (req: PermissionRequest) => {
          asked.push(req)
          return answers.shift() ?? 'reject_once'
        },
      },
    }
  }

  it('allow_always is recorded as an event; later calls of that tool run without asking, in forks too', async () => {
    ctx = await startAgent({
      provider: createScriptProvider(parseModelScript([writeTurn(1), writeTurn(2), writeTurn(3)])),
    })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const editor = answering(['allow_always'])
    await ctx.agent.runTurn(session, request('one', editor.client))
    await ctx.agent.runTurn(session, request('two', editor.client))
    expect(editor.asked).toHaveLength(1)
    expect(editor.asked[0]).toMatchObject({
      title: 'Write f1.txt',
      kind: 'edit',
      locations: [{ path: path.join(cwd, 'f1.txt') }],
    })
    expect(await readFile(path.join(cwd, 'f2.txt'), 'utf8')).toBe('2')
    const always = session.events().filter((e) => e.type === PERMISSION_ALWAYS_EVENT)
    expect(always.map((e) => e.data)).toEqual([
      { tool: 'write_text_file', scope: 'write_text_file', allow: true },
    ])

    const child = ctx.sessions.fork(session)
    const childEditor = answering([])
    await ctx.agent.runTurn(child, request('three', childEditor.client))
    expect(childEditor.asked).toEqual([])
    expect(await readFile(path.join(cwd, 'f3.txt'), 'utf8')).toBe('3')
  })

  it('the standing answers of a session follow its log as it grows', async () => {
    ctx = await startAgent({ provider: createScriptProvider(parseModelScript([])) })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const always = (scope: string, allow: boolean) =>
      session.append({ type: PERMISSION_ALWAYS_EVENT, data: { tool: scope, scope, allow } })
    expect(standingAnswersOf(session)).toEqual(new Map())
    always('a', true)
    always('b', false)
    expect(standingAnswersOf(session)).toEqual(
      new Map([
        ['a', true],
        ['b', false],
      ]),
    )
    always('a', false)
    session.append({ type: 'x:note', data: {} })
    expect(standingAnswersOf(session)).toEqual(
      new Map([
        ['a', false],
        ['b', false],
      ]),
    )
    expect(standingAnswersOf(session)).toEqual(standingAnswers(session.events()))
    const child = ctx.sessions.fork(session, 1)
    expect(standingAnswersOf(child)).toEqual(new Map([['a', true]]))
  })

  it('reject_always refuses later calls without asking; reject_once asks again next time', async () => {
    ctx = await startAgent({
      provider: createScriptProvider(parseModelScript([writeTurn(1), writeTurn(2), writeTurn(3)])),
    })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const editor = answering(['reject_once', 'reject_always'])
    await ctx.agent.runTurn(session, request('one', editor.client))
    await ctx.agent.runTurn(session, request('two', editor.client))
    await ctx.agent.runTurn(session, request('three', editor.client))
    expect(editor.asked).toHaveLength(2)
    const results = session.events().filter((e) => e.type === 'tool/result')
    expect(results.map((e) => e.data.output)).toEqual([
      'Not run: the user refused permission for Write f1.txt.',
      'Not run: the user refused permission for Write f2.txt.',
      'Not run: the user chose to always reject this.',
    ])
  })

  it('read-only mode does not offer changing tools, and refuses them if called anyway', async () => {
    const seen: string[][] = []
    const provider = createScriptProvider(parseModelScript([writeTurn(1)]))
    ctx = await startAgent({
      provider: {
        ...provider,
        stream: (req, signal) => {
          seen.push(req.tools.map((t) => t.name))
          return provider.stream(req, signal)
        },
      },
      modeOf: () => 'read-only',
    })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const editor = answering(['allow_once'])
    await ctx.agent.runTurn(session, request('one', editor.client))
    // offered to a client that shows no forms (so not `ask_user`)
    const reading = builtinTools().filter((t) => t.effect === 'read' && (t.offeredTo?.({}) ?? true))
    expect(seen[0]).toEqual([...reading.map((t) => t.spec.name), UPDATE_PLAN_TOOL, DELEGATE_TOOL])
    expect(editor.asked).toEqual([])
    expect(session.events().find((e) => e.type === 'tool/result')?.data.output).toBe(
      'Not run: the session is read-only, and write_text_file changes things.',
    )
  })

  it('accept-edits writes without asking', async () => {
    ctx = await startAgent({
      provider: createScriptProvider(parseModelScript([writeTurn(1)])),
      modeOf: () => 'accept-edits',
    })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const editor = answering([])
    await ctx.agent.runTurn(session, request('one', editor.client))
    expect(editor.asked).toEqual([])
    expect(await readFile(path.join(cwd, 'f1.txt'), 'utf8')).toBe('1')
  })

  it('input that does not match the schema is an error result, and nobody is asked', async () => {
    const turn = [[{ toolCall: { name: 'write_text_file', input: { path: 'x.txt' } } }], [{ text: 'ok' }]]
    ctx = await startAgent({ provider: createScriptProvider(parseModelScript([turn])) })
    const session = ctx.sessions.create(undefined, { meta: { cwd } })
    const editor = answering(['allow_once'])
    await ctx.agent.runTurn(session, request('one', editor.client))
    expect(editor.asked).toEqual([])
    expect(session.events().find((e) => e.type === 'tool/result')?.data).toMatchObject({
      output: "Invalid input for write_text_file: input must have required property 'content'.",
      isError: true,
    })
  })
})
