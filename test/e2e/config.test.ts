import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { answerText, fork, newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'
import { fromLog } from './updates.js'

type Option = acp.SessionConfigOption & { currentValue?: unknown }

const current = (options: readonly acp.SessionConfigOption[] | null | undefined) =>
  Object.fromEntries((options ?? []).map((o) => [o.id, (o as Option).currentValue]))

const thoughts = (agent: AgentProcess, sessionId: string, from: number) =>
  agent.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_thought_chunk')
    .map((n) => (n.update as { content: { text: string } }).content.text)
    .join('')

/** The kinds of the updates that come from log events (not the announcements after an answer). */
const kinds = (agent: AgentProcess, sessionId: string, from: number) =>
  agent.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && fromLog(n))
    .map((n) => n.update.sessionUpdate)

describe('session configuration: models, reasoning effort and modes (transcript snapshots)', () => {
  it('config-modes: set and read back, refused when unknown, inherited by a fork, restored and replayed after a restart', async () => {
    const output = await runScenario(async (s) => {
      const args = ['--model-name', 'echo,echo-large']
      const agent = s.start({ args })
      await agent.initialize()
      const created = await agent.agent.request('session/new', { cwd: agent.cwd, mcpServers: [] })
      const sessionId = created.sessionId
      expect(current(created.configOptions)).toEqual({ mode: 'ask', model: 'echo', thought_level: 'default' })
      expect(created.modes?.currentModeId).toBe('ask')
      expect(created.modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'accept-edits', 'read-only'])
      expect(created.configOptions?.map((o) => o.category)).toEqual(['mode', 'model', 'thought_level'])

      let from = agent.updates.length
      const model = await agent.agent.request('session/set_config_option', {
        sessionId,
        configId: 'model',
        value: 'echo-large',
      })
      expect(current(model.configOptions)).toEqual({
        mode: 'ask',
        model: 'echo-large',
        thought_level: 'default',
      })
      const effort = await agent.agent.request('session/set_config_option', {
        sessionId,
        configId: 'thought_level',
        value: 'high',
      })
      expect(current(effort.configOptions).thought_level).toBe('high')
      await agent.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' })
      expect(kinds(agent, sessionId, from)).toEqual([
        'config_option_update',
        'config_option_update',
        'current_mode_update',
        'config_option_update',
      ])

      // Unknown options and values are -32602 and change nothing (nothing is sent either).
      from = agent.updates.length
      const refused = [
        () =>
          agent.agent.request('session/set_config_option', { sessionId, configId: 'colour', value: 'red' }),
        () =>
          agent.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'gpt-9' }),
        () =>
          agent.agent.request('session/set_config_option', {
            sessionId,
            configId: 'mode',
            type: 'boolean',
            value: true,
          }),
        () => agent.agent.request('session/set_mode', { sessionId, modeId: 'yolo' }),
      ]
      for (const request of refused) await expect(request()).rejects.toMatchObject({ code: -32602 })
      expect(kinds(agent, sessionId, from)).toEqual([])

      from = agent.updates.length
      await prompt(agent, sessionId, 'hello')
      expect(thoughts(agent, sessionId, from)).toContain('(model echo-large, reasoning effort high)')

      const child = await fork(agent, sessionId)
      const childSetup = await agent.agent.request('session/resume', {
        sessionId: child.sessionId,
        cwd: agent.cwd,
      })
      expect(current(childSetup.configOptions)).toEqual({
        mode: 'accept-edits',
        model: 'echo-large',
        thought_level: 'high',
      })
      expect(childSetup.modes?.currentModeId).toBe('accept-edits')
      // The child's own changes stay its own.
      await agent.agent.request('session/set_mode', { sessionId: child.sessionId, modeId: 'read-only' })
      expect(await agent.stop()).toBe(0)

      const second = s.start({ idPrefix: 'ses_r', args })
      await second.initialize()
      const loaded = await second.agent.request('session/load', {
        sessionId,
        cwd: second.cwd,
        mcpServers: [],
      })
      expect(current(loaded.configOptions)).toEqual({
        mode: 'accept-edits',
        model: 'echo-large',
        thought_level: 'high',
      })
      expect(kinds(second, sessionId, 0)).toEqual([
        'config_option_update',
        'config_option_update',
        'current_mode_update',
        'config_option_update',
        'user_message_chunk',
        'session_info_update',
        'agent_thought_chunk',
        'agent_message_chunk',
      ])
      const childLoaded = await second.agent.request('session/resume', {
        sessionId: child.sessionId,
        cwd: second.cwd,
      })
      expect(childLoaded.modes?.currentModeId).toBe('read-only')
      from = second.updates.length
      await prompt(second, sessionId, 'again')
      expect(thoughts(second, sessionId, from)).toContain('(model echo-large, reasoning effort high)')
      expect(answerText(second, sessionId, from)).toContain('I remember 2 messages')
    })
    await expectScenarioSnapshot('config-modes', output)
  })

  it('a session whose recorded model is no longer offered falls back to the default', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start({ args: ['--model-name', 'echo,echo-large'] })
      await agent.initialize()
      const sessionId = await newSession(agent)
      await agent.agent.request('session/set_config_option', {
        sessionId,
        configId: 'model',
        value: 'echo-large',
      })
      expect(await agent.stop()).toBe(0)
      const second = s.start({ idPrefix: 'ses_r' })
      await second.initialize()
      const resumed = await second.agent.request('session/resume', { sessionId, cwd: second.cwd })
      expect(current(resumed.configOptions).model).toBe('echo')
    })
    expect(output.problems).toEqual([])
  })
})
