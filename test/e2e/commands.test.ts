import type * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import type { AgentProcess } from '../support/agent-process.js'
import { answerText, fork, newSession, prompt } from '../support/snapshot-client.js'
import { expectScenarioSnapshot, runScenario } from '../support/snapshot-scenario.js'
import { fromLog } from './updates.js'

type Chunk = { sessionUpdate: string; messageId?: string; content?: { text?: string } }

const ofSession = (agent: AgentProcess, sessionId: string, from = 0) =>
  agent.updates.slice(from).filter((n) => n.sessionId === sessionId)

/** messageId -> text, per chunk kind, of the chunks among `updates`. */
function messages(updates: readonly acp.SessionNotification[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const n of updates) {
    const u = n.update as Chunk
    if (!u.sessionUpdate.endsWith('_chunk') || u.sessionUpdate === 'user_message_chunk') continue
    const key = `${u.sessionUpdate}:${u.messageId}`
    out[key] = (out[key] ?? '') + (u.content?.text ?? '')
  }
  return out
}

/** The wire lines the agent wrote, as labels: `response:<id>` or `update:<kind>`. */
function outgoing(agent: AgentProcess): string[] {
  return agent.audit
    .outgoing()
    .map((m) =>
      m.method === 'session/update'
        ? `update:${(m.params as { update: { sessionUpdate: string } }).update.sessionUpdate}`
        : `response:${String(m.id)}`,
    )
}

describe('slash commands, live titles and message ids (transcript snapshots)', () => {
  it('commands: the command list follows the answer; /title, /help and /fork are recorded like prompts', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const sessionId = await newSession(agent)
      await prompt(agent, sessionId, 'hello there')
      // The answer of session/new (id 1) comes before the command list for its session.
      const lines = outgoing(agent)
      expect(lines.indexOf('response:1')).toBeLessThan(lines.indexOf('update:available_commands_update'))
      const commands = ofSession(agent, sessionId).find(
        (n) => n.update.sessionUpdate === 'available_commands_update',
      )?.update as acp.AvailableCommandsUpdate
      expect(commands.availableCommands.map((c) => c.name)).toEqual([
        'fork',
        'title',
        'rewind',
        'compact',
        'reload-instructions',
        'help',
      ])
      // The title is sent as soon as the first prompt gives one.
      expect(
        ofSession(agent, sessionId).find((n) => n.update.sessionUpdate === 'session_info_update')?.update,
      ).toMatchObject({
        title: 'hello there',
      })

      let from = agent.updates.length
      await prompt(agent, sessionId, '/title  The plan ')
      expect(answerText(agent, sessionId, from)).toBe('Title set: The plan')
      expect(ofSession(agent, sessionId, from).map((n) => n.update.sessionUpdate)).toEqual([
        'session_info_update',
        'agent_message_chunk',
      ])
      from = agent.updates.length
      await prompt(agent, sessionId, '/help')
      expect(answerText(agent, sessionId, from)).toContain('/fork')
      from = agent.updates.length
      await prompt(agent, sessionId, '/fork')
      const forked = answerText(agent, sessionId, from)
      expect(forked).toMatch(/^Forked ses_1 at seq \d+ into ses_2 \("The plan \(fork\)"\)/)
      from = agent.updates.length
      await prompt(agent, sessionId, '/fork 2')
      expect(answerText(agent, sessionId, from)).toContain('Cannot fork at seq 2')

      const { sessions } = await agent.agent.request('session/list', {})
      expect(sessions.find((x) => x.sessionId === 'ses_2')?.title).toBe('The plan (fork)')
      expect(sessions.find((x) => x.sessionId === sessionId)?.title).toBe('The plan')
      // The child holds the turns before the /fork command and answers from them; the commands
      // among them are no part of what the model remembers.
      from = agent.updates.length
      await prompt(agent, 'ses_2', 'and now?')
      expect(answerText(agent, 'ses_2', from)).toContain('I remember 2 messages')
      expect(answerText(agent, 'ses_2', from)).not.toContain('/help')
      // An unknown /command is a prompt like any other.
      from = agent.updates.length
      await prompt(agent, sessionId, '/nope')
      expect(answerText(agent, sessionId, from)).toContain('"/nope"')
    })
    await expectScenarioSnapshot('commands', output)
  })

  it('message-ids: the same ids live and replayed; fork by a user or an agent message id, or a JetBrains AIR fork point', async () => {
    const output = await runScenario(async (s) => {
      const agent = s.start()
      await agent.initialize()
      const sessionId = await newSession(agent)
      await prompt(agent, sessionId, 'first')
      await prompt(agent, sessionId, 'second')
      const live = messages(ofSession(agent, sessionId).filter(fromLog))
      expect(Object.keys(live)).toEqual([
        'agent_thought_chunk:msg_4',
        'agent_message_chunk:msg_4',
        'agent_thought_chunk:msg_10',
        'agent_message_chunk:msg_10',
      ])
      const from = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      const replay = ofSession(agent, sessionId, from).filter(fromLog)
      expect(messages(replay)).toEqual(live)
      const users = replay.filter((n) => n.update.sessionUpdate === 'user_message_chunk')
      expect(users.map((n) => (n.update as Chunk).messageId)).toEqual(['msg_2', 'msg_8'])

      const forkAt = (meta: Record<string, unknown>) =>
        agent.agent.request('session/fork', { sessionId, cwd: agent.cwd, mcpServers: [], _meta: meta })
      const lineage = (result: { _meta?: unknown }) => (result._meta as { dsh: { seedLength: number } }).dsh
      // An agent message: through the end of its turn (turn 1 ends at seq 6).
      expect(lineage(await forkAt({ dsh: { messageId: 'msg_4' } })).seedLength).toBe(6)
      // A user message: just before its turn (to edit it and send it again).
      expect(lineage(await forkAt({ dsh: { messageId: 'msg_8' } })).seedLength).toBe(6)
      expect(lineage(await forkAt({ dsh: { messageId: 'msg_2' } })).seedLength).toBe(0)
      // JetBrains AIR (claude-agent-acp, codex-acp): version 1, a segment suffix is dropped.
      const air = (fork: Record<string, unknown>) =>
        forkAt({ jetbrains: { air: { fork: { version: 1, ...fork } } } })
      expect(lineage(await air({ messageId: 'msg_10:segment:3' })).seedLength).toBe(12)
      for (const bad of [
        { dsh: { messageId: 'msg_5' } },
        { dsh: { messageId: 'nope' } },
        { dsh: { messageId: 4 } },
      ]) {
        await expect(forkAt(bad)).rejects.toMatchObject({ code: -32602, data: { code: 'INVALID_BOUNDARY' } })
      }
      await expect(air({ messageId: 'msg_99' })).rejects.toMatchObject({ code: -32602 })
      await expect(forkAt({ dsh: { messageId: 'msg_4', boundary: 6 } })).rejects.toMatchObject({
        code: -32602,
      })
      const child = await fork(agent, sessionId, { boundary: 6 })
      expect(child.seedLength).toBe(6)
    })
    await expectScenarioSnapshot('message-ids', output)
  })

  it('a model server that reuses tool call ids gets distinct toolCallIds within a session, live and replayed', async () => {
    const output = await runScenario(async (s) => {
      const call = { toolCall: { id: 'call_1', name: 'read_text_file', input: { path: 'a' }, result: 'x' } }
      const turn = [[call], [call], [{ text: 'done' }]]
      const agent = s.start({ args: ['--model', s.scriptModel('model.json', [turn, turn])] })
      await agent.initialize()
      const sessionId = await newSession(agent)
      await prompt(agent, sessionId, 'one')
      await prompt(agent, sessionId, 'two')
      const ids = (updates: readonly acp.SessionNotification[]) =>
        updates
          .filter((n) => n.update.sessionUpdate === 'tool_call')
          .map((n) => (n.update as { toolCallId: string }).toolCallId)
      const live = ids(ofSession(agent, sessionId))
      expect(live).toHaveLength(4)
      expect(new Set(live).size).toBe(4)
      const from = agent.updates.length
      await agent.agent.request('session/load', { sessionId, cwd: agent.cwd, mcpServers: [] })
      expect(ids(ofSession(agent, sessionId, from))).toEqual(live)
    })
    expect(output.problems).toEqual([])
  })
})
