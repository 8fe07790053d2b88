import type { CommandOutputUpdate } from '../../../session/index.js'
import type { V2Update } from '../renderer.js'

/**
 * A command the agent runs itself, as ACP v2's agent-owned display terminal: when it starts, the
 * terminal (`terminal_update` with its command and cwd) and its reference appended to the tool
 * call's content (`tool_call_content_chunk`); each piece of output a `terminal_output_chunk`; its
 * end a `terminal_update` with `exitStatus` (which marks it exited).
 */
export function displayTerminal(update: CommandOutputUpdate): V2Update[] {
  const { toolCallId, terminalId, command, cwd, data, exitStatus } = update
  const out: V2Update[] = []
  if (command !== undefined) {
    out.push({ sessionUpdate: 'terminal_update', terminalId, command, ...(cwd !== undefined && { cwd }) })
    out.push({
      sessionUpdate: 'tool_call_content_chunk',
      toolCallId,
      content: { type: 'terminal', terminalId },
    })
  }
  if (data !== undefined) out.push({ sessionUpdate: 'terminal_output_chunk', terminalId, data })
  if (exitStatus !== undefined) {
    const { exitCode, signal } = exitStatus
    out.push({
      sessionUpdate: 'terminal_update',
      terminalId,
      exitStatus: { ...(exitCode !== null && { exitCode }), ...(signal !== null && { signal }) },
    })
  }
  return out
}
