import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'
import { testResources } from '../support/test-resources.js'
import { checkV2 } from '../support/v2/v2-schema.js'
import { agentText, foldUpdates, fromLog, seqOf } from './updates.js'

const CWD = PROJECT_DIR
const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

const { start, tempDir } = testResources()

function updatesOf(agent: AgentProcess, sessionId: string, from = 0): acp.SessionNotification[] {
  return agent.updates.slice(from).filter((u) => u.sessionId === sessionId)
}

async function expectCleanExit(agent: AgentProcess): Promise<void> {
  expect(await agent.stop()).toBe(0)
  expect(agent.unterminatedOutput()).toBe('')
  expect(agent.audit.problems).toEqual([])
}

describe('dsh-acp over real stdio, driven by the official ACP client', () => {
  it('initialize negotiates v1 and advertises exactly what runs', async () => {
    const agent = start()
    const init = await agent.initialize()
    expect(init.protocolVersion).toBe(1)
    expect(init.agentInfo?.name).toBe('dsh-acp')
    expect(init.agentCapabilities?.loadSession).toBe(true)
    expect(init.agentCapabilities?.sessionCapabilities).toEqual({
      additionalDirectories: {},
      list: {},
      resume: {},
      close: {},
      delete: {},
      fork: {},
      archive: {},
      status: {},
      title: {},
      workspaceTrust: {},
      options: {},
      systemPrompt: { mode: { override: {} } },
    })
    await expectCleanExit(agent)
  })

  it('initialize: the highest version we serve at or below the requested one (v2 for 2 and later, v1 below), kept for the connection; a malformed one is -32602', async () => {
    const ask = (agent: AgentProcess, protocolVersion: unknown) =>
      agent.agent.request('initialize', { protocolVersion, clientCapabilities: {} } as never)
    const v2 = start()
    const answers = [await ask(v2, 3), await ask(v2, 2)]
    expect(answers.map((answer) => answer.protocolVersion)).toEqual([2, 2])
    // A v2 answer is checked against the SDK's v2 schema; the v1 audit has nothing else to say.
    for (const answer of answers) expect(checkV2('initialize', 'result', answer)).toEqual([])
    expect(await v2.stop()).toBe(0)
    expect(v2.unterminatedOutput()).toBe('')
    expect(v2.audit.problems.filter((problem) => !problem.startsWith('initialize result'))).toEqual([])
    const agent = start()
    expect((await ask(agent, 0)).protocolVersion).toBe(1)
    expect((await ask(agent, 1)).protocolVersion).toBe(1)
    // A repeat is answered by the version the first one chose (the SDK router's rule).
    expect((await ask(agent, 2)).protocolVersion).toBe(1)
    for (const bad of ['1', 1.5, -1, 65536, null])
      await expect(ask(agent, bad)).rejects.toMatchObject({ code: -32602 })
    const refusals = agent.audit
      .outgoing()
      .filter((m) => (m.error as { code?: number } | undefined)?.code === -32602)
    expect(refusals).toHaveLength(5)
    await expectCleanExit(agent)
  })

  it('new, prompt twice, load replays what the client saw live, list, resume, close, delete', async () => {
    const agent = start()
    await agent.initialize()
    const { sessionId } = await agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    const first = await agent.agent.request('session/prompt', { sessionId, prompt: [text('hello')] })
    expect(first.stopReason).toBe('end_turn')
    const firstSeq = (first._meta as { dsh: { seq: number } }).dsh.seq
    const second = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [text('what did I say?')],
    })
    const secondSeq = (second._meta as { dsh: { seq: number } }).dsh.seq
    expect(secondSeq).toBeGreaterThan(firstSeq)
    const live = updatesOf(agent, sessionId).filter(fromLog)
    expect(agentText(live)).toContain('hello')
    for (const update of live) expect(seqOf(update)).toBeLessThanOrEqual(secondSeq)

    const before = agent.updates.length
    await agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replay = updatesOf(agent, sessionId, before).filter(fromLog)
    expect(foldUpdates(replay, true)).toEqual(foldUpdates(live, true))
    const userChunks = replay.filter((u) => u.update.sessionUpdate === 'user_message_chunk')
    expect(userChunks.map((u) => (u.update as { content: { text: string } }).content.text)).toEqual([
      'hello',
      'what did I say?',
    ])

    const listed = await agent.agent.request('session/list', {})
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId])
    expect(listed.sessions[0]?.cwd).toBe(CWD)
    expect(listed.sessions[0]?.title).toBe('hello')

    const beforeResume = agent.updates.length
    await agent.agent.request('session/resume', { sessionId, cwd: CWD })
    await agent.agent.request('session/list', {})
    // The title did not change since this client saw it live: a resume says it no more (35.6).
    expect(agent.updates.slice(beforeResume).map((u) => u.update.sessionUpdate)).toEqual([
      'available_commands_update',
    ])

    await agent.agent.request('session/close', { sessionId })
    await agent.agent.request('session/delete', { sessionId })
    // Deleting what is not there (any more) succeeds silently (ACP SHOULD).
    expect(await agent.agent.request('session/delete', { sessionId })).toEqual({})
    expect(await agent.agent.request('session/delete', { sessionId: 'ses_never_made' })).toEqual({})
    expect(await agent.agent.request('session/delete', { sessionId: '../../etc/passwd' })).toEqual({})
    expect((await agent.agent.request('session/list', {})).sessions).toEqual([])
    await expect(
      agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32002,
      data: { sessionId },
    })
    await expectCleanExit(agent)
  })

  it('session/list pages with an opaque cursor, filters by cwd, and refuses a bad cursor with -32602', async () => {
    const agent = start()
    await agent.initialize()
    const other = tempDir('dsh-acp-other-')
    const made: string[] = []
    for (let i = 0; i < 53; i++) {
      const cwd = i % 2 === 0 ? CWD : other
      made.push((await agent.agent.request('session/new', { cwd, mcpServers: [] })).sessionId)
    }
    const first = await agent.agent.request('session/list', {})
    expect(first.sessions).toHaveLength(50)
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = await agent.agent.request('session/list', { cursor: first.nextCursor as string })
    expect(second.nextCursor).toBeUndefined()
    const all = [...first.sessions, ...second.sessions].map((s) => s.sessionId)
    expect(all).toHaveLength(made.length)
    expect([...all].sort()).toEqual([...made].sort())
    const inProject = await agent.agent.request('session/list', { cwd: CWD })
    expect(inProject.sessions.map((s) => s.sessionId).sort()).toEqual(
      made.filter((_, i) => i % 2 === 0).sort(),
    )
    await expect(agent.agent.request('session/list', { cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: -32602,
    })
    await expect(agent.agent.request('session/list', { cwd: 'relative' })).rejects.toMatchObject({
      code: -32602,
    })
    await expectCleanExit(agent)
  })

  it('a restarted process loads the same history from the store', async () => {
    const storeDir = tempDir('dsh-acp-restart-')
    const first = start({ storeDir })
    await first.initialize()
    const { sessionId } = await first.agent.request('session/new', { cwd: CWD, mcpServers: [] })
    await first.agent.request('session/prompt', { sessionId, prompt: [text('remember me')] })
    const loadStart = first.updates.length
    await first.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayBefore = foldUpdates(updatesOf(first, sessionId, loadStart).filter(fromLog))
    await expectCleanExit(first)

    const second = start({ storeDir })
    await second.initialize()
    expect((await second.agent.request('session/list', {})).sessions).toMatchObject([
      { sessionId, title: 'remember me' },
    ])
    await second.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] })
    const replayAfter = updatesOf(second, sessionId).filter(fromLog)
    expect(agentText(replayAfter)).toContain('remember me')
    expect(foldUpdates(replayAfter)).toEqual(replayBefore)
    const again = await second.agent.request('session/prompt', { sessionId, prompt: [text('and now?')] })
    expect(again.stopReason).toBe('end_turn')
    await expectCleanExit(second)
  })

  it('errors: unknown session -32002, relative cwd -32602, prompt before initialize refused', async () => {
    const agent = start()
    await expect(agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })).rejects.toMatchObject({
      code: -32600,
    })
    await agent.initialize()
    await expect(
      agent.agent.request('session/prompt', { sessionId: 'ses_nope', prompt: [text('x')] }),
    ).rejects.toMatchObject({ code: -32002, data: { sessionId: 'ses_nope' } })
    await expect(
      agent.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
    })
    await expectCleanExit(agent)
  })
})
