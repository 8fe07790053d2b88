import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { AgentProcess } from './agent-process.js'

/** Small typed steps for snapshot scenarios, through the official client. */

export const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

/** `_meta.dsh` of a result or notification (throws when absent, so a scenario stops early). */
export function dsh<T = Record<string, unknown>>(value: { _meta?: unknown } | null | undefined): T {
  const found = (value?._meta as { dsh?: T } | null | undefined)?.dsh
  if (found === undefined) throw new Error(`no _meta.dsh in ${JSON.stringify(value)}`)
  return found
}

export async function newSession(agent: AgentProcess, cwd = agent.cwd): Promise<string> {
  return (await agent.agent.request('session/new', { cwd, mcpServers: [] })).sessionId
}

/** Prompts with one text block; resolves the stop reason and the seq of the turn's `turn/end`. */
export async function prompt(
  agent: AgentProcess,
  sessionId: string,
  message: string,
): Promise<{ stopReason: acp.StopReason; seq: number }> {
  const result = await agent.agent.request('session/prompt', { sessionId, prompt: [text(message)] })
  return { stopReason: result.stopReason, seq: dsh<{ seq: number }>(result).seq }
}

export interface ForkOptions {
  /** `_meta.dsh.boundary`; absent: no `_meta` at all. */
  readonly boundary?: unknown
  readonly cwd?: string
}

export interface ForkResult {
  readonly sessionId: string
  readonly parentSession: string
  readonly seedLength: number
}

/** `session/fork`; the boundary, if any, travels as `_meta.dsh.boundary`. */
export async function fork(
  agent: AgentProcess,
  sessionId: string,
  options: ForkOptions = {},
): Promise<ForkResult> {
  const result = await agent.agent.request('session/fork', {
    sessionId,
    cwd: options.cwd ?? agent.cwd,
    mcpServers: [],
    ...('boundary' in options && { _meta: { dsh: { boundary: options.boundary } } }),
  })
  const meta = dsh<{ parentSession: string; seedLength: number }>(result)
  return { sessionId: result.sessionId, ...meta }
}

/** The agent's answer text streamed for `sessionId` since update index `from`. */
export function answerText(agent: AgentProcess, sessionId: string, from = 0): string {
  return agent.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => {
      const content = (n.update as { content: { type: string; text?: string } }).content
      return content.type === 'text' ? (content.text ?? '') : ''
    })
    .join('')
}

/** The texts of the user message chunks sent for `sessionId` since update index `from` (replay). */
export function userTexts(agent: AgentProcess, sessionId: string, from = 0): string[] {
  return agent.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk')
    .map((n) => (n.update as { content: { text?: string } }).content.text ?? '')
}
