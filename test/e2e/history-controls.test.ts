import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'

interface Row {
  sessionId: string
  title?: string | null | undefined
  archived?: boolean | null | undefined
}

async function listed(agent: AgentProcess, archived?: string): Promise<Row[]> {
  const { sessions } = (await agent.agent.request('session/list', {
    ...(archived !== undefined && { archived }),
  })) as { sessions: Row[] }
  return sessions.map(({ sessionId, title, archived }) => ({ sessionId, title, archived }))
}

const status = async (agent: AgentProcess, sessionId: string) =>
  ((await agent.agent.request('session/status', { sessionId })) as { status: string }).status

describe('history controls: set_title, archive, unarchive, status (unstable ACP)', () => {
  it('history-controls: titles and archive states are stored, listed after a restart, and each error has its code', async () => {
    const output = await runScenario(async (s) => {
      const first = s.start()
      const init = await first.initialize()
      expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({
        archive: {},
        status: {},
        title: {},
      })
      const kept = await newSession(first)
      await prompt(first, kept, 'the first question')
      const hidden = await newSession(first)
      await prompt(first, hidden, 'a question to archive')

      const set = await first.agent.request('session/set_title', {
        sessionId: kept,
        title: '  Build \n fix  ',
      })
      expect(set).toEqual({ title: 'Build fix' })
      const info = first.updates.filter((n) => n.update.sessionUpdate === 'session_info_update')
      expect(info.at(-1)).toMatchObject({ sessionId: kept, update: { title: 'Build fix' } })
      await expect(
        first.agent.request('session/set_title', { sessionId: kept, title: ' \t' }),
      ).rejects.toMatchObject({
        code: -32602,
      })
      await expect(
        first.agent.request('session/set_title', { sessionId: 'ses_unknown', title: 'x' }),
      ).rejects.toMatchObject({ code: -32002 })

      expect(await status(first, hidden)).toBe('open')
      expect(await first.agent.request('session/archive', { sessionId: hidden })).toEqual({})
      expect(await first.agent.request('session/archive', { sessionId: hidden })).toEqual({})
      expect(await status(first, hidden)).toBe('saved')
      await expect(
        first.agent.request('session/archive', { sessionId: 'ses_unknown' }),
      ).rejects.toMatchObject({
        code: -32002,
      })
      expect(await listed(first)).toEqual([{ sessionId: kept, title: 'Build fix', archived: false }])
      expect(await listed(first, 'only')).toEqual([
        { sessionId: hidden, title: 'a question to archive', archived: true },
      ])
      expect((await listed(first, 'include')).map((row) => row.sessionId).sort()).toEqual(
        [hidden, kept].sort(),
      )
      await expect(listed(first, 'hidden')).rejects.toMatchObject({ code: -32602 })
      await expect(first.agent.request('session/status', { sessionId: 'ses_unknown' })).rejects.toMatchObject(
        {
          code: -32002,
          data: { sessionId: 'ses_unknown' },
        },
      )
      expect(await first.stop()).toBe(0)

      // A new process reads titles and archive states from the files of sessions it has not loaded.
      const second = s.start({ idPrefix: 'ses_r' })
      await second.initialize()
      expect(await listed(second, 'include')).toEqual(
        expect.arrayContaining([
          { sessionId: kept, title: 'Build fix', archived: false },
          { sessionId: hidden, title: 'a question to archive', archived: true },
        ]),
      )
      expect(await status(second, kept)).toBe('saved')
      // Retitling and unarchiving a session that is not loaded leave it not loaded.
      expect(
        await second.agent.request('session/set_title', { sessionId: hidden, title: 'Old idea' }),
      ).toEqual({
        title: 'Old idea',
      })
      expect(await second.agent.request('session/unarchive', { sessionId: hidden })).toEqual({})
      expect(await second.agent.request('session/unarchive', { sessionId: hidden })).toEqual({})
      expect(await status(second, hidden)).toBe('saved')
      expect(second.updates.filter((n) => n.sessionId === hidden)).toEqual([])
      expect(await listed(second)).toEqual(
        expect.arrayContaining([{ sessionId: hidden, title: 'Old idea', archived: false }]),
      )
      // The title set by hand stays when the session goes on.
      await second.agent.request('session/load', { sessionId: kept, cwd: second.cwd, mcpServers: [] })
      expect(await status(second, kept)).toBe('open')
      await prompt(second, kept, 'another question')
      expect(await listed(second)).toEqual(
        expect.arrayContaining([{ sessionId: kept, title: 'Build fix', archived: false }]),
      )
    })
    await expectScenarioSnapshot('history-controls', output)
  })
})
