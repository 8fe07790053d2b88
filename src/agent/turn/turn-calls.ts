import {
  type CoreEvent,
  SessionError,
  SessionErrorCode,
  toolCallUpdate,
  toolResultUpdate,
} from '../../session/index.js'
import type { LivePermissions } from '../config/permissions.js'
import type { ToolSet } from '../tools/registry.js'
import type { ToolCallLocation, ToolResult } from '../types.js'
import type { StreamedCall } from './step/model-step.js'
import { CANCELLED_TOOL_OUTPUT, executeToolCall } from './tool-execution.js'
import type { TurnScope } from './turn-scope.js'

/** A call as recorded in the log, with the result its provider answered itself, if any. */
export interface RecordedCall {
  readonly event: CoreEvent<'tool/call'>
  readonly preset?: ToolResult
}

/**
 * The tool calls of one turn: recording what the model asked for, running it and recording the
 * results, each announced to the client as it is recorded. Call ids stay unique in the session.
 */
export class TurnCalls {
  private readonly usedCallIds = new Set<string>()

  constructor(
    private readonly scope: TurnScope,
    /** How many calls of `concurrent` tools (delegations) of one step run at once. */
    private readonly maxConcurrent: number,
  ) {
    for (const event of scope.session.events()) {
      if (event.type === 'tool/call') this.usedCallIds.add(event.data.callId)
    }
  }

  /** Records a streamed call (`tool/call`) under a call id unique in the session, and announces it. */
  record(step: number, call: StreamedCall, tools: ToolSet): RecordedCall {
    const tool = tools.get(call.name)?.tool
    const callId = this.uniqueCallId(call.callId, step)
    const locations = tool?.locations
      ? safeLocations(() => tool.locations?.(call.input, this.scope.session.cwd))
      : []
    const event = this.scope.session.append({
      type: 'tool/call',
      data: {
        turn: this.scope.turn,
        step,
        callId,
        name: call.name,
        input: call.input,
        title: tool ? safeTitle(() => tool.title(call.input), call.name) : call.name,
        kind: tool?.kind ?? 'other',
        ...(locations.length > 0 && { locations }),
      },
    }) as CoreEvent<'tool/call'>
    this.scope.send(toolCallUpdate(event.data), event.seq)
    return call.result !== undefined ? { event, preset: call.result } : { event }
  }

  /**
   * Runs a step's calls and records their results in call order. Calls of `concurrent` tools all
   * start at once (at most `maxConcurrent` running); any other call starts only after every call
   * before it was recorded, as a lone call always has.
   */
  async executeAll(
    step: number,
    calls: readonly RecordedCall[],
    tools: ToolSet,
    permissions: LivePermissions,
  ): Promise<void> {
    const limit = limiter(this.maxConcurrent)
    const started = calls.map((call) =>
      call.preset === undefined && tools.get(call.event.data.name)?.tool.concurrent === true
        ? limit(() => this.execute(call, tools, permissions))
        : undefined,
    )
    for (const [index, call] of calls.entries()) {
      this.recordResult(step, call.event, await (started[index] ?? this.execute(call, tools, permissions)))
    }
  }

  /** Runs a recorded call. Never throws: failures and cancellation become error results. */
  private async execute(
    call: RecordedCall,
    tools: ToolSet,
    permissions: LivePermissions,
  ): Promise<ToolResult> {
    if (this.scope.signal.aborted) return { output: CANCELLED_TOOL_OUTPUT, isError: true }
    if (call.preset !== undefined) return call.preset
    return executeToolCall(call.event, { ...this.scope, tools, permissions })
  }

  /** Records a call's result (`tool/result`); a result the log refuses as not JSON becomes an error result. */
  recordResult(step: number, call: CoreEvent<'tool/call'>, result: ToolResult): void {
    const data = { turn: this.scope.turn, step, callId: call.data.callId }
    let event: CoreEvent<'tool/result'>
    try {
      event = this.scope.session.append({
        type: 'tool/result',
        data: {
          ...data,
          output: result.output,
          ...(result.isError === true && { isError: true }),
          ...(result.content !== undefined && { content: result.content }),
        },
      }) as CoreEvent<'tool/result'>
    } catch (error) {
      if (!(error instanceof SessionError) || error.code !== SessionErrorCode.INVALID_EVENT) throw error
      const output = `${call.data.name} returned a result that is not JSON: ${error.message}`
      event = this.scope.session.append({
        type: 'tool/result',
        data: { ...data, output, isError: true },
      }) as CoreEvent<'tool/result'>
    }
    const { callId, output, isError, content } = event.data
    this.scope.send(toolResultUpdate(callId, output, isError === true, content), event.seq)
  }

  /** The provider's id if it is usable and new in this turn, else a minted one. */
  private uniqueCallId(proposed: string, step: number): string {
    let id = typeof proposed === 'string' && proposed !== '' ? proposed : `call_${this.scope.turn}_${step}`
    for (let n = 2; this.usedCallIds.has(id); n++)
      id = `${proposed || `call_${this.scope.turn}_${step}`}_${n}`
    this.usedCallIds.add(id)
    return id
  }
}

/** Runs tasks with at most `max` of them in flight at once. */
function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0
  const waiting: Array<() => void> = []
  return async (task) => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve))
    else active++
    try {
      return await task()
    } finally {
      // A finished task hands its slot straight to the next waiting one.
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}

function safeLocations(locations: () => readonly ToolCallLocation[] | undefined): ToolCallLocation[] {
  try {
    return [...(locations() ?? [])]
  } catch {
    return []
  }
}

function safeTitle(title: () => string, fallback: string): string {
  try {
    return title()
  } catch {
    return fallback
  }
}
