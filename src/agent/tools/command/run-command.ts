import type { ToolCallContent, ToolResult } from '../../types.js'
import { defineTool } from '../define-tool.js'
import { stringField, type Tool, type ToolContext } from '../tool.js'
import { runLocalCommand } from './local-process.js'
import { CommandSandbox } from './sandbox.js'

export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 120
export const MAX_COMMAND_TIMEOUT_SECONDS = 600
/** Most output bytes a command keeps (the editor's terminal or our own buffer). */
export const COMMAND_OUTPUT_LIMIT = 256 * 1024
/** Most characters of a command line its title shows; a longer one is cut, saying how much is left out. */
export const COMMAND_TITLE_LIMIT = 2000

/**
 * `run_command {command, timeoutSeconds?}`: runs a shell command line (`/bin/sh -c`) in the
 * session's cwd. Through the editor's terminal (`terminal/create`, embedded in the tool call,
 * `terminal/wait_for_exit`, `terminal/output`, `terminal/release`) when the client advertised
 * `terminal`; otherwise as a local child process in `sandbox` (its result says when it ran
 * unconfined), shown while it runs as a display terminal (`context.commandOutput`: its start, each
 * piece of output, its end). Either way with a timeout and an output cap, and killed when the turn
 * is cancelled.
 * Always an `execute`: the policy asks unless the user chose "always" for this exact command line;
 * its title shows the whole command line (up to {@link COMMAND_TITLE_LIMIT} characters).
 */
export function createRunCommandTool(sandbox: CommandSandbox): Tool {
  return defineTool({
    spec: {
      name: 'run_command',
      description:
        'Run a shell command (sh -c) in the working directory and return its exit status and output ' +
        '(stdout and stderr together). The user is asked first. Commands time out after `timeoutSeconds` ' +
        `(default ${DEFAULT_COMMAND_TIMEOUT_SECONDS}).`,
      inputSchema: {
        type: 'object',
        properties: {
          command: { type: 'string', minLength: 1, description: 'The command line' },
          timeoutSeconds: { type: 'integer', minimum: 1, maximum: MAX_COMMAND_TIMEOUT_SECONDS },
        },
        required: ['command'],
        additionalProperties: false,
      } as const,
    },
    kind: 'execute',
    effect: 'execute',
    title: (input) => `Run ${titleOf(stringField(input, 'command') ?? 'command')}`,
    permissionScope: (input) => `run_command:${stringField(input, 'command') ?? ''}`,
    async run(input, context) {
      const { command, timeoutSeconds } = input
      const timeoutMs = (timeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS) * 1000
      if (context.client.terminal) return runInEditorTerminal(command, timeoutMs, context)
      const launch = await sandbox.launch(command, context.cwd, context.additionalDirectories)
      const show = context.commandOutput
      const terminalId = `term_${context.callId}`
      show?.({ terminalId, command, cwd: context.cwd })
      const run = await runLocalCommand(launch.file, launch.args, {
        cwd: context.cwd,
        timeoutMs,
        outputLimit: COMMAND_OUTPUT_LIMIT,
        signal: context.signal,
        env: launch.env,
        ...(launch.sandboxInfoFd && { sandboxInfoFd: true }),
        ...(launch.sandboxArgs && { argsFd4: launch.sandboxArgs }),
        ...(show && { onOutput: (piece: Buffer) => show({ terminalId, data: piece.toString('base64') }) }),
      })
      show?.({ terminalId, exitStatus: { exitCode: run.exitCode, signal: run.signal } })
      const result = commandResult(run, timeoutMs)
      if (launch.unsandboxedNote === undefined) return result
      return { ...result, output: `${result.output}\n${launch.unsandboxedNote}` }
    },
  })
}

/** `run_command` with the default sandbox (`auto`, network on, nothing hidden beyond its own rules). */
export const runCommandTool: Tool = createRunCommandTool(new CommandSandbox())

async function runInEditorTerminal(
  command: string,
  timeoutMs: number,
  context: ToolContext,
): Promise<ToolResult> {
  const terminal = context.client.terminal
  if (!terminal) throw new Error('the client has no terminal')
  const terminalId = await terminal.create(
    { command: '/bin/sh', args: ['-c', command], cwd: context.cwd, outputByteLimit: COMMAND_OUTPUT_LIMIT },
    context.signal,
  )
  const embedded: ToolCallContent[] = [{ type: 'terminal', terminalId }]
  let released = false
  const release = async () => {
    if (released) return
    released = true
    await terminal.release(terminalId).catch(() => {})
  }
  try {
    context.progress(embedded)
    const timeout = AbortSignal.timeout(timeoutMs)
    const waitSignal = AbortSignal.any([context.signal, timeout])
    let timedOut = false
    try {
      await terminal.waitForExit(terminalId, waitSignal)
    } catch (error) {
      if (!timeout.aborted || context.signal.aborted) throw error
      timedOut = true
      await terminal.kill(terminalId).catch(() => {})
    }
    const result = await terminal.output(terminalId, context.signal)
    const exit = result.exitStatus ?? {}
    return {
      ...commandResult(
        {
          output: result.output,
          truncated: result.truncated,
          exitCode: exit.exitCode ?? null,
          signal: exit.signal ?? null,
          timedOut,
        },
        timeoutMs,
      ),
      content: embedded,
    }
  } catch (error) {
    if (context.signal.aborted) await terminal.kill(terminalId).catch(() => {})
    throw error
  } finally {
    await release()
  }
}

/** How a command ended, wherever it ran: its output (cut or not) and exit. */
interface CommandEnd {
  readonly output: string
  readonly truncated: boolean
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
}

/** The tool's result for a command that ended so (`timeoutMs`: the time it was given). */
function commandResult(
  { output, truncated, exitCode, signal, timedOut }: CommandEnd,
  timeoutMs: number,
): ToolResult {
  const status = timedOut
    ? `timed out after ${timeoutMs / 1000} s and was killed`
    : signal
      ? `killed by ${signal}`
      : `exit code ${exitCode ?? 'unknown'}`
  const note = truncated ? `\n[output cut: it was longer than ${COMMAND_OUTPUT_LIMIT} bytes]` : ''
  const text = `${status}\n${output}${note}`
  return timedOut || signal || exitCode !== 0 ? { output: text, isError: true } : { output: text }
}

/**
 * The command line as the title shows it: whole, every line of it, so what the user allows is what
 * runs; past {@link COMMAND_TITLE_LIMIT} characters it is cut, saying how many were left out.
 */
function titleOf(command: string): string {
  if (command.length <= COMMAND_TITLE_LIMIT) return command
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(command.charAt(COMMAND_TITLE_LIMIT - 1))
    ? COMMAND_TITLE_LIMIT - 1
    : COMMAND_TITLE_LIMIT
  const left = command.length - end
  return `${command.slice(0, end)}… [${left} more characters not shown; the tool call's rawInput has the whole command]`
}
