import { AbortedError, isAbortError, raceAbort } from '../../lib/abort.js'
import { errorMessage } from '../../lib/error-message.js'
import type { CoreEvent, JsonValue, Session, SessionUpdate } from '../../session/index.js'
import { toolOutputText } from '../../session/index.js'
import type { FileCheckpoints } from '../checkpoints/recorder.js'
import {
  decidePermission,
  type LivePermissions,
  PERMISSION_ALWAYS_EVENT,
  type PermissionAlwaysData,
  permissionScope,
} from '../config/permissions.js'
import type { RegisteredTool, ToolSet } from '../tools/registry.js'
import type { Tool, ToolContext, ToolPreview } from '../tools/tool.js'
import type { ToolCallContent, ToolCallLocation, ToolResult, TurnRequest } from '../types.js'

/** The result a tool call gets when the turn is cancelled before it finished. */
export const CANCELLED_TOOL_OUTPUT = 'Cancelled: the turn was cancelled before this tool call finished.'

/** Longest tool output (in characters) the model reads; longer output is cut with a note. */
export const MODEL_OUTPUT_LIMIT = 30_000

/** Everything one tool call needs from its turn. */
export interface ToolCallEnvironment {
  readonly session: Session
  readonly turn: number
  readonly tools: ToolSet
  /** The turn's permissions, read at the call's decision (and again once the user answered). */
  readonly permissions: LivePermissions
  /** The turn's request: its client bridge and its tool allowance (a subagent's). */
  readonly request: Pick<TurnRequest, 'client' | 'subagent'>
  readonly signal: AbortSignal
  /** Sends a `session/update` tagged with `seq`. */
  readonly send: (update: SessionUpdate, seq: number) => void
  /** Where the file tools record their changes (absent: nowhere). */
  readonly checkpoints?: FileCheckpoints
}

/**
 * Runs one recorded call: validates its input against the tool's schema, applies the permission
 * policy (asking the user when it says so, and recording an "always" answer as a
 * `permission:always` event), announces `in_progress`, runs the tool and cuts very long output for
 * the model (the editor still gets the whole text). Never throws: every failure, refusal and
 * cancellation becomes an error result.
 */
export async function executeToolCall(
  call: CoreEvent<'tool/call'>,
  env: ToolCallEnvironment,
): Promise<ToolResult> {
  const { name, input } = call.data
  if (env.signal.aborted) return cancelled()
  const entry = env.tools.get(name)
  if (!entry) return { output: `Unknown tool ${JSON.stringify(name)}.`, isError: true }
  const allowed = env.request.subagent?.allowedTools
  if (allowed && !allowed.has(name))
    return { output: `The tool ${name} is not available here.`, isError: true }
  const invalid = await entry.invalid(input)
  if (invalid !== undefined) return { output: `Invalid input for ${name}: ${invalid}.`, isError: true }
  if (env.signal.aborted) return cancelled()
  try {
    const context = contextFor(call, env)
    const permitted = await checkPermission(entry, call, env, context)
    if (typeof permitted === 'string') return { output: permitted, isError: true }
    if (env.signal.aborted) return cancelled()
    if (entry.tool.ownsProgress !== true) {
      env.send(
        { sessionUpdate: 'tool_call_update', toolCallId: call.data.callId, status: 'in_progress' },
        call.seq,
      )
    }
    const runContext = permitted.previewed ? { ...context, previewed: permitted.previewed } : context
    const running = Promise.resolve().then(() => entry.tool.run(input, runContext))
    return cutForModel(await (entry.tool.settlesOnAbort ? running : raceAbort(running, env.signal)))
  } catch (error) {
    if (env.signal.aborted || isAbortError(error)) return cancelled()
    return { output: `${name} failed: ${errorMessage(error)}`, isError: true }
  }
}

function cancelled(): ToolResult {
  return { output: CANCELLED_TOOL_OUTPUT, isError: true }
}

function contextFor(call: CoreEvent<'tool/call'>, env: ToolCallEnvironment): ToolContext {
  const allowedTools = env.request.subagent?.allowedTools
  return {
    sessionId: env.session.id,
    cwd: env.session.cwd,
    callId: call.data.callId,
    turn: env.turn,
    client: env.request.client,
    signal: env.signal,
    additionalDirectories: env.session.additionalDirectories,
    mode: env.permissions.mode(),
    ...(allowedTools && { allowedTools }),
    ...(env.checkpoints && { checkpoints: env.checkpoints }),
    sendUpdate: env.send,
    commandOutput: (report) =>
      env.send({ sessionUpdate: 'command_output', toolCallId: call.data.callId, ...report }, call.seq),
    progress: (content) =>
      env.send(
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: call.data.callId,
          status: 'in_progress',
          content: [...content],
        },
        call.seq,
      ),
  }
}

/**
 * The error result's text when the call may not run, else what the user approved: when the user is
 * asked, the tool's preview (an edit's diff) goes first to the pending tool call (a
 * `tool_call_update` still `pending`) and into the question.
 */
async function checkPermission(
  entry: RegisteredTool,
  call: CoreEvent<'tool/call'>,
  env: ToolCallEnvironment,
  context: ToolContext,
): Promise<string | { readonly previewed?: ToolPreview }> {
  const { tool } = entry
  const scope = permissionScope(tool, call.data.input)
  const decide = () => decidePermission(tool, scope, env.permissions.mode(), env.permissions.standing())
  const decision = decide()
  if (decision.verdict === 'allow') return {}
  if (decision.verdict === 'refuse') return `Not run: ${decision.reason}.`
  if (!env.request.client.requestPermission) {
    return `Not run: ${tool.spec.name} needs the user's permission and the client cannot ask for it.`
  }
  const previewed = await tool.preview?.(call.data.input, context)
  const locations = previewed?.locations ?? (call.data.locations && locationsOf(call.data.locations))
  if (previewed) {
    const shown = { content: [...previewed.content], ...(locations && { locations: [...locations] }) }
    env.send(
      { sessionUpdate: 'tool_call_update', toolCallId: call.data.callId, status: 'pending', ...shown },
      call.seq,
    )
  }
  const answer = await env.request.client.requestPermission(
    {
      sessionId: env.session.id,
      toolCallId: call.data.callId,
      title: call.data.title ?? tool.spec.name,
      kind: tool.kind,
      rawInput: call.data.input,
      ...(locations !== undefined && { locations }),
      ...(previewed && { content: previewed.content }),
    },
    env.signal,
  )
  if (answer === 'cancelled') throw new AbortedError('the permission request was cancelled')
  if (answer === 'allow_always' || answer === 'reject_always') {
    recordAlways(env.session, tool, scope, answer === 'allow_always')
  }
  if (answer !== 'allow_once' && answer !== 'allow_always') {
    return `Not run: the user refused permission for ${call.data.title ?? tool.spec.name}.`
  }
  // The mode may have changed while the user was asked: a session made read-only meanwhile refuses.
  const now = decide()
  if (now.verdict === 'refuse') return `Not run: ${now.reason}.`
  return previewed ? { previewed } : {}
}

/** The recorded locations of a call (as its tool gave them: `{path, line?}`), as ACP locations. */
function locationsOf(recorded: readonly JsonValue[]): ToolCallLocation[] {
  return recorded.flatMap((location) => {
    if (typeof location !== 'object' || location === null || !('path' in location)) return []
    const { path, line } = location
    if (typeof path !== 'string') return []
    return [{ path, ...(typeof line === 'number' && { line }) }]
  })
}

function recordAlways(session: Session, tool: Tool, scope: string, allow: boolean): void {
  const data: PermissionAlwaysData = { tool: tool.spec.name, scope, allow }
  session.append({ type: PERMISSION_ALWAYS_EVENT, data })
}

/**
 * Output longer than {@link MODEL_OUTPUT_LIMIT} characters: the model reads its head and a note
 * saying how much was cut, while the editor's content keeps the whole text.
 */
export function cutForModel(result: ToolResult): ToolResult {
  const text = toolOutputText(result.output)
  if (text.length <= MODEL_OUTPUT_LIMIT) return result
  const note = `\n[output cut for the model: showing the first ${MODEL_OUTPUT_LIMIT} of ${text.length} characters]`
  const content: readonly ToolCallContent[] = result.content ?? [
    { type: 'content', content: { type: 'text', text } },
  ]
  return { ...result, output: text.slice(0, MODEL_OUTPUT_LIMIT) + note, content }
}
