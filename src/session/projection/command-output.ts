/**
 * What a command the agent runs itself (not in a client's terminal) shows while it runs: a live
 * update of its tool call, in no event (a replay shows the call's result). One update says one
 * thing: the command started (`command`, `cwd`), bytes it wrote (`data`, base64), or how it ended
 * (`exitStatus`). ACP v2 shows it as an agent-owned display terminal (`terminal_update`,
 * `terminal_output_chunk`, the terminal appended to the call with `tool_call_content_chunk`);
 * ACP v1 has no such terminal: its view sends nothing of it.
 */
export interface CommandOutputUpdate {
  readonly sessionUpdate: 'command_output'
  readonly toolCallId: string
  /** The display terminal's id (one per call). */
  readonly terminalId: string
  readonly command?: string
  readonly cwd?: string
  /** Output bytes, base64. */
  readonly data?: string
  readonly exitStatus?: { readonly exitCode: number | null; readonly signal: string | null }
}
