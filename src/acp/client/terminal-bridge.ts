import type { TerminalBridge } from '../../agent/types.js'
import { type ClientRequestSender, ClientResponseError, sendClientRequest } from './client-requests.js'

/** ACP `terminal/*` on `sessionId`, every result checked against the schema. */
export function terminalBridge(send: ClientRequestSender, sessionId: string): TerminalBridge {
  return {
    async create(command, signal) {
      const { terminalId } = await sendClientRequest(
        send,
        'terminal/create',
        {
          sessionId,
          command: command.command,
          ...(command.args !== undefined && { args: [...command.args] }),
          ...(command.cwd !== undefined && { cwd: command.cwd }),
          ...(command.outputByteLimit !== undefined && { outputByteLimit: command.outputByteLimit }),
        },
        signal,
      )
      // The schema admits any string; an empty one names no terminal.
      if (terminalId === '') {
        throw new ClientResponseError('terminal/create', 'terminalId', 'terminalId must not be empty')
      }
      return terminalId
    },
    async output(terminalId, signal) {
      const response = await sendClientRequest(send, 'terminal/output', { sessionId, terminalId }, signal)
      return {
        output: response.output,
        truncated: response.truncated,
        exitStatus: response.exitStatus ?? null,
      }
    },
    async waitForExit(terminalId, signal) {
      const response = await sendClientRequest(
        send,
        'terminal/wait_for_exit',
        { sessionId, terminalId },
        signal,
      )
      return { exitCode: response.exitCode ?? null, signal: response.signal ?? null }
    },
    async kill(terminalId) {
      await sendClientRequest(send, 'terminal/kill', { sessionId, terminalId })
    },
    async release(terminalId) {
      await sendClientRequest(send, 'terminal/release', { sessionId, terminalId })
    },
  }
}
