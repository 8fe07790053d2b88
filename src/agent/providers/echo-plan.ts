import type { ModelMessage } from '../../session/index.js'
import { contentToText } from '../shared/content-text.js'
import type { ModelChunk, ToolSpec } from '../types.js'

/** What starts a prompt the echo model answers by working through a plan. */
export const ECHO_PLAN_PREFIX = 'plan:'

/**
 * The steps of an echo plan prompt: `plan: a; b; c` (or one step per line after `plan:`), or
 * undefined when the prompt is not one.
 */
export function echoPlanSteps(prompt: string): string[] | undefined {
  const trimmed = prompt.trimStart()
  if (!trimmed.toLowerCase().startsWith(ECHO_PLAN_PREFIX)) return undefined
  const steps = trimmed
    .slice(ECHO_PLAN_PREFIX.length)
    .split(/[;\n]/)
    .map((step) => step.replace(/^\s*[-*]\s*/, '').trim())
    .filter((step) => step !== '')
  return steps.length > 0 ? steps : undefined
}

/**
 * The echo model's move for a plan prompt (offline demos and tests of the plan view): with `n`
 * steps it calls `update_plan` n + 1 times, one step per request (the first step in progress, then
 * each completed in turn and the next started, then all completed), and then answers. Undefined
 * when the last user message is no plan prompt or `update_plan` is not offered.
 */
export function echoPlanMove(
  messages: readonly ModelMessage[],
  tools: readonly ToolSpec[],
): ModelChunk[] | undefined {
  if (!tools.some((tool) => tool.name === 'update_plan')) return undefined
  const lastUser = messages.findLastIndex((m) => m.role === 'user')
  const user = messages[lastUser]
  if (user?.role !== 'user') return undefined
  const steps = echoPlanSteps(contentToText(user.content))
  if (!steps) return undefined
  const done = messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length
  if (done > steps.length) {
    return [
      { type: 'text', text: `Done: ${steps.length} ${steps.length === 1 ? 'step' : 'steps'}.` },
      { type: 'stop', reason: 'end_turn' },
    ]
  }
  const entries = steps.map((content, i) => ({
    content,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
  }))
  const turn = messages.filter((m) => m.role === 'user').length
  return [
    { type: 'tool_call', callId: `echo_plan_${turn}_${done + 1}`, name: 'update_plan', input: { entries } },
    { type: 'stop', reason: 'tool_calls' },
  ]
}
