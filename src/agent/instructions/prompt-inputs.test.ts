import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { modelOf, text } from '../../../test/support/delegate-model.js'
import { request, startAgent } from '../../../test/support/turn-harness.js'
import { INSTRUCTIONS_SET, recordedPromptInputs, recordPromptInputs } from './prompt-inputs.js'

let ctx: Context | undefined
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-inputs-'))
})
afterEach(async () => {
  await ctx?.stop()
  ctx = undefined
  rmSync(dir, { recursive: true, force: true })
})

describe('the system prompt inputs of a session', () => {
  it('a session without them (written before they were recorded) gets them before its next turn, once', async () => {
    writeFileSync(join(dir, 'AGENTS.md'), 'Say hi.')
    const model = { ...modelOf(() => [text('ok')]), takesSystemPrompt: true }
    ctx = await startAgent({ provider: model })
    const session = ctx.sessions.create(undefined, { meta: { cwd: dir } })
    expect(recordedPromptInputs(session)).toBeUndefined()
    await ctx.agent.runTurn(session, request('one'))
    writeFileSync(join(dir, 'AGENTS.md'), 'Say bye.')
    await ctx.agent.runTurn(session, request('two'))
    const types = session.events().map((e) => e.type)
    expect(types[0]).toBe(INSTRUCTIONS_SET)
    expect(types.filter((t) => t === INSTRUCTIONS_SET)).toHaveLength(1)
    const [first, second] = model.requests
    expect(first?.system).toContain('Say hi.')
    expect(second?.system).toBe(first?.system)
  })

  it('a model that takes no system prompt gets none, and nothing is recorded', async () => {
    const model = modelOf(() => [text('ok')])
    ctx = await startAgent({ provider: model })
    const session = ctx.sessions.create(undefined, { meta: { cwd: dir } })
    await ctx.agent.runTurn(session, request('one'))
    expect(session.events().some((e) => e.type === INSTRUCTIONS_SET)).toBe(false)
    expect(model.requests[0]?.system).toBeUndefined()
  })

  it('records new inputs only when they changed, and the last recorded one holds', async () => {
    ctx = await startAgent({ provider: modelOf(() => []) })
    mkdirSync(join(dir, 'work'))
    const session = ctx.sessions.create(undefined, { meta: { cwd: join(dir, 'work') } })
    const env = { XDG_CONFIG_HOME: join(dir, 'none'), SHELL: '/bin/sh' }
    expect(await recordPromptInputs(session, env)).toBeDefined()
    expect(await recordPromptInputs(session, env)).toBeUndefined()
    writeFileSync(join(dir, 'work', 'AGENTS.md'), 'new')
    const event = await recordPromptInputs(session, env)
    expect(recordedPromptInputs(session)?.seq).toBe(event?.seq)
    expect(recordedPromptInputs(session)?.inputs.files.map((f) => f.text)).toEqual(['new'])
  })
})
