import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  afterTools,
  call,
  childrenOf,
  lastUser,
  modelOf,
  results,
  text,
} from '../../../test/support/delegate-model.js'
import { deferred } from '../../../test/support/openai-wire.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import type { Session } from '../../session/index.js'
import { PERMISSION_ALWAYS_EVENT, type PermissionAnswer, stricterMode } from '../config/permissions.js'
import { writeTextFileTool } from '../tools/index.js'
import type { ClientBridge, ModelRequest, PermissionRequest } from '../types.js'
import { DELEGATE_TOOL } from './delegate-tool.js'

// A subagent's permissions are never looser than its parent's current ones: at its start (the
// child is seeded from the last completed turn, so a switch during this turn is not in its log)
// and while it runs (read at every decision).

let ctx: Context | undefined
let cwd: string
beforeEach(async () => {
  cwd = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-delegate-perm-')))
})
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
  await rm(cwd, { recursive: true, force: true })
})

const write = (id: string, file: string) =>
  call(id, writeTextFileTool.spec.name, { path: file, content: 'x' })

/** An editor that records each question and answers it with `answer(request)`. */
function editor(answer: (request: PermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>) {
  const asked: PermissionRequest[] = []
  const client: ClientBridge = {
    requestPermission: async (req) => {
      asked.push(req)
      return answer(req)
    },
  }
  return { asked, client }
}

async function parentIn(mode: string): Promise<Session> {
  if (!ctx) throw new Error('no agent')
  const parent = ctx.sessions.create(undefined, { meta: { cwd } })
  await ctx.agent.setConfig(parent, 'mode', mode)
  return parent
}

const childOf = (parent: Session): Session => {
  const [child] = ctx ? childrenOf(ctx, parent) : []
  if (!child) throw new Error('no child')
  return child
}

describe('a subagent is never looser than its parent now', () => {
  it('the modes from loosest to strictest: accept-edits, ask, read-only', () => {
    expect(stricterMode('accept-edits', 'ask')).toBe('ask')
    expect(stricterMode('read-only', 'ask')).toBe('read-only')
    expect(stricterMode('ask', 'accept-edits')).toBe('ask')
    expect(stricterMode('accept-edits', 'accept-edits')).toBe('accept-edits')
  })

  it('switched to read-only during the turn, then delegating: the child is offered no write and its write is refused', async () => {
    let parent: Session | undefined
    const model = modelOf(async (req) => {
      const user = lastUser(req)
      if (user === 'write it') return afterTools(req) ? [text('could not')] : [write('w1', 'child.txt')]
      if (afterTools(req)) return [text('done')]
      // The user switches the parent to read-only while its model is asked.
      if (parent && ctx) await ctx.agent.setConfig(parent, 'mode', 'read-only')
      return [call('d1', DELEGATE_TOOL, { task: 'write it' })]
    })
    ctx = await startAgent({ provider: model })
    parent = await parentIn('accept-edits')
    const user = editor(() => 'allow_once')
    await ctx.agent.runTurn(parent, request('go', user.client))

    const child = childOf(parent)
    // Seeded from before the switch, the child's own log still says accept-edits.
    expect(child.config.mode).toBe('accept-edits')
    const childFirst = model.requests.find((r) => r.sessionId === child.id)
    expect(childFirst?.tools.map((t) => t.name)).not.toContain(writeTextFileTool.spec.name)
    expect(results(child).map((r) => r.data)).toEqual([
      expect.objectContaining({
        isError: true,
        output: 'Not run: the session is read-only, and write_text_file changes things.',
      }),
    ])
    expect(existsSync(path.join(cwd, 'child.txt'))).toBe(false)
    expect(user.asked).toEqual([])
  })

  it('a running child sees a switch to read-only at its next call: after a slow step, and after a question it was waiting on', async () => {
    const slow = deferred()
    const stepAsked = deferred()
    let parent: Session | undefined
    const model = modelOf(async (req: ModelRequest) => {
      const user = lastUser(req)
      if (user === 'slow write') {
        if (afterTools(req)) return [text('slow done')]
        stepAsked.resolve()
        await slow.promise
        return [write('w1', 'slow.txt')]
      }
      if (user === 'ask then write') {
        const last = req.messages.at(-1)
        if (!afterTools(req)) return [call('c1', 'run_command', { command: 'true' })]
        if (last?.role === 'tool' && last.callId === 'c1') return [write('w2', 'asked.txt')]
        return [text('asked done')]
      }
      if (afterTools(req)) return [text('done')]
      return [call('d1', DELEGATE_TOOL, { task: user === 'one' ? 'slow write' : 'ask then write' })]
    })
    ctx = await startAgent({ provider: model })
    parent = await parentIn('accept-edits')
    const switchToReadOnly = async () => {
      if (ctx && parent) await ctx.agent.setConfig(parent, 'mode', 'read-only')
    }

    // A slow step: the switch lands while the child's model is asked.
    const user = editor(() => 'allow_once')
    const running = ctx.agent.runTurn(parent, request('one', user.client))
    await stepAsked.promise
    await switchToReadOnly()
    slow.resolve()
    await running
    const slowChild = childOf(parent)
    expect(results(slowChild).map((r) => r.data.output)).toEqual([
      'Not run: the session is read-only, and write_text_file changes things.',
    ])
    expect(existsSync(path.join(cwd, 'slow.txt'))).toBe(false)

    // A question: the child's command asks (accept-edits), the user switches the parent to
    // read-only and then allows; the command and the write after it are both refused.
    await ctx.agent.setConfig(parent, 'mode', 'accept-edits')
    const asking = editor(async (): Promise<PermissionAnswer> => {
      await switchToReadOnly()
      return 'allow_once'
    })
    await ctx.agent.runTurn(parent, request('two', asking.client))
    const askingChild = childrenOf(ctx, parent).at(-1)
    expect(asking.asked.map((q) => q.sessionId)).toEqual([askingChild?.id])
    expect(askingChild ? results(askingChild).map((r) => r.data.output) : []).toEqual([
      'Not run: the session is read-only, and run_command changes things.',
      'Not run: the session is read-only, and write_text_file changes things.',
    ])
    expect(existsSync(path.join(cwd, 'asked.txt'))).toBe(false)
  })

  it('a parent switched to a looser mode does not loosen the child beyond its own', async () => {
    let parent: Session | undefined
    const model = modelOf(async (req) => {
      const user = lastUser(req)
      if (user === 'first') return [text('ok')]
      if (user === 'write it') return afterTools(req) ? [text('could not')] : [write('w1', 'loose.txt')]
      if (afterTools(req)) return [text('done')]
      if (parent && ctx) await ctx.agent.setConfig(parent, 'mode', 'accept-edits')
      return [call('d1', DELEGATE_TOOL, { task: 'write it' })]
    })
    ctx = await startAgent({ provider: model })
    parent = await parentIn('read-only')
    await ctx.agent.runTurn(parent, request('first'))
    await ctx.agent.runTurn(parent, request('go'))
    const child = childOf(parent)
    expect(results(child).map((r) => r.data.output)).toEqual([
      'Not run: the session is read-only, and write_text_file changes things.',
    ])
    expect(existsSync(path.join(cwd, 'loose.txt'))).toBe(false)
  })

  it('an "always reject" the parent recorded during this turn refuses the child without asking', async () => {
    const model = modelOf((req) => {
      const user = lastUser(req)
      if (user === 'run it')
        return afterTools(req) ? [text('refused')] : [call('c1', 'run_command', { command: 'true' })]
      if (!afterTools(req)) return [call('p1', 'run_command', { command: 'true' })]
      const last = req.messages.at(-1)
      if (last?.role === 'tool' && last.callId === 'p1')
        return [call('d1', DELEGATE_TOOL, { task: 'run it' })]
      return [text('done')]
    })
    ctx = await startAgent({ provider: model })
    const parent = await parentIn('ask')
    const user = editor(() => 'reject_always')
    await ctx.agent.runTurn(parent, request('go', user.client))
    expect(parent.events().filter((e) => e.type === PERMISSION_ALWAYS_EVENT)).toHaveLength(1)
    const child = childOf(parent)
    expect(user.asked.map((q) => q.sessionId)).toEqual([parent.id])
    expect(results(child).map((r) => r.data.output)).toEqual([
      'Not run: the user chose to always reject this.',
    ])
  })
})
