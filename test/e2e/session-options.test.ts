import type * as acp from '@agentclientprotocol/sdk'
import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../support/acp-schema.js'
import { openAiAgents } from '../support/openai-agent.js'
import { conversationModel } from '../support/prefix-cache.js'
import { say } from '../support/subagent-conversation.js'

/**
 * `session/options` through the built binary and the official client: the defaults a new session
 * starts with, or an existing session's values (live, and stored in a new process), each option
 * valid against the SDK's `SessionConfigOption` schema; nothing is created; bad params -32602,
 * an unknown session -32002.
 */

const start = openAiAgents()

interface OptionsAnswer {
  readonly configOptions: acp.SessionConfigOption[]
  readonly modes: acp.SessionModeState
}

function currentValueOf(answer: OptionsAnswer, id: string): unknown {
  const option = answer.configOptions.find((o) => o.id === id)
  return option && 'currentValue' in option ? option.currentValue : undefined
}

function checked(answer: OptionsAnswer): OptionsAnswer {
  for (const option of answer.configOptions)
    expect(validateAcpDefinition('SessionConfigOption', option)).toEqual([])
  expect(validateAcpDefinition('SessionModeState', answer.modes)).toEqual([])
  return answer
}

describe('session/options', () => {
  it('answers the defaults without a session, and a session’s own values with one, creating nothing', async () => {
    const run = await start({ script: conversationModel({ hi: [say('hello')] }).script })
    const options = (params: object) => run.agent.agent.request<OptionsAnswer>('session/options', params)

    const defaults = checked(await options({}))
    const { sessions } = await run.agent.agent.request('session/list', {})
    expect(sessions).toEqual([])

    const sessionId = await run.newSession()
    const created = await run.agent.agent.request('session/load', { sessionId, cwd: run.cwd, mcpServers: [] })
    expect(defaults.configOptions).toEqual(created.configOptions)
    const plan = defaults.modes.availableModes.find((mode) => mode.id !== defaults.modes.currentModeId)
    if (plan === undefined) throw new Error('one mode only')
    await run.agent.agent.request('session/set_mode', { sessionId, modeId: plan.id })

    expect(checked(await options({ sessionId })).modes.currentModeId).toBe(plan.id)
    expect(currentValueOf(await options({}), 'mode')).toBe(defaults.modes.currentModeId)

    await run.restart()
    const stored = checked(await options({ sessionId }))
    expect(stored.modes.currentModeId).toBe(plan.id)
    expect(currentValueOf(stored, 'mode')).toBe(plan.id)
    const status = await run.agent.agent.request('session/status', { sessionId })
    expect(status).toMatchObject({ status: 'saved' })

    await expect(options({ sessionId: 'ses_unknown' })).rejects.toMatchObject({ code: -32002 })
    await expect(options({ sessionId: 7 })).rejects.toMatchObject({ code: -32602 })
    expect(run.agent.audit.problems).toEqual([])
  })
})
