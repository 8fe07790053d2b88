import {
  type JsonValue,
  type Session,
  type SessionStore,
  SUBAGENT_SPAWNED,
  type SubagentSpawned,
  titleFromText,
} from '../../session/index.js'
import type { LivePermissions } from '../config/permissions.js'
import { ASK_USER_TOOL } from '../questions/ask-user.js'
import { defineTool } from '../tools/define-tool.js'
import { fieldOf, type Tool, type ToolContext, ToolFailure } from '../tools/tool.js'
import type { SubagentChannel, SubagentLink, ToolResult, TurnOutcome, TurnRequest } from '../types.js'
import { finalAnswer } from './final-answer.js'
import { idleState, subagentStarted, subagentStateUpdate } from './subagent-updates.js'

/** The name the model calls the delegation tool by. */
export const DELEGATE_TOOL = 'delegate'

/** What the delegate tool needs from the agent that registers it. */
export interface DelegateDeps {
  readonly sessions: () => SessionStore
  /** Runs one turn on the child with the parent's model (the agent's `runTurn`). */
  readonly runTurn: (child: Session, request: TurnRequest) => Promise<TurnOutcome>
  /** Model requests a child's turn may make before it ends `max-turn-requests`. */
  readonly maxSteps: number
  /** Every tool name a session has (the agent's and its MCP servers'), in the model's order: what a child may use. */
  readonly toolNames: (sessionId: string) => readonly string[]
  /** A session's live permissions (its running turn's): a child's never exceed its parent's. */
  readonly permissionsOf: (sessionId: string) => LivePermissions
}

/** Tools only the parent runs. */
const PARENT_ONLY: ReadonlySet<string> = new Set([DELEGATE_TOOL, ASK_USER_TOOL])

interface DelegateInput {
  readonly task: string
  readonly title: string
  readonly tools: readonly string[] | undefined
}

/** The input the schema admits, with the checks it cannot state (a non-empty task, a non-blank title). */
function parseInput(input: {
  readonly task: string
  readonly title?: string
  readonly tools?: readonly string[]
}): DelegateInput {
  const { task, title, tools } = input
  if (task === '') throw new ToolFailure('input.task must be a non-empty string')
  if (title !== undefined && title.trim() === '') {
    throw new ToolFailure('input.title must be a non-empty string')
  }
  return { task, title: title ?? titleFromText(task) ?? 'Subagent', tools }
}

/** A title for the editor from input that may be malformed: `Subagent` unless `run` would accept it. */
function titleOf(input: JsonValue): string {
  const task = fieldOf(input, 'task')
  const title = fieldOf(input, 'title')
  const tools = fieldOf(input, 'tools')
  if (typeof task !== 'string' || (title !== undefined && typeof title !== 'string')) return 'Subagent'
  if (tools !== undefined && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string'))) {
    return 'Subagent'
  }
  try {
    return `Subagent: ${parseInput({ task, ...(title !== undefined && { title }) }).title}`
  } catch {
    return 'Subagent'
  }
}

/**
 * The tools a child may run: the parent's (never more), minus `delegate` (a child does not
 * delegate further) and `ask_user` (a child works unattended: what it needs to know is in its
 * task), narrowed to `requested` when given. Names the parent cannot run are refused.
 */
function childTools(
  requested: readonly string[] | undefined,
  context: ToolContext,
  all: readonly string[],
): Set<string> {
  const parentMay = (name: string) =>
    all.includes(name) && !PARENT_ONLY.has(name) && (context.allowedTools?.has(name) ?? true)
  if (requested === undefined) return new Set(all.filter(parentMay))
  const refused = requested.filter((name) => !parentMay(name))
  if (refused.length > 0) {
    throw new ToolFailure(
      `a subagent may only use tools this session may use (other than ${[...PARENT_ONLY].join(' and ')}); not: ${refused.join(', ')}`,
    )
  }
  return new Set(requested)
}

const unseen = (context: ToolContext): SubagentChannel => ({ sendUpdate: () => {}, client: context.client })

/**
 * `delegate {task, title?, tools?}`: hands a task to a subagent. The child is a real fork of this
 * session clipped to its last completed turn (`ctx.sessions.forkSubagent`, durable before it
 * runs), marked with this call, and recorded in this session's log (`subagent:spawned`), so its first model request carries this session's history exactly,
 * then the task. It runs its own turn with the same model and tools (or fewer) up to the step
 * bound; its final answer is this call's result. Then a persisted child is closed (it loads again on
 * demand). Calls in one step run concurrently; cancelling
 * the turn cancels the child, whose turn then ends `cancelled`.
 */
export function delegateTool(deps: DelegateDeps): Tool {
  return defineTool({
    spec: {
      name: DELEGATE_TOOL,
      description:
        'Hand a self-contained task to a subagent: a copy of this conversation as of the end of the ' +
        "previous user turn, which works on the task with the same tools and returns its final answer. Several delegate calls in one reply run in parallel. The subagent cannot see this turn's messages, so put everything it needs in `task`.",
      inputSchema: {
        type: 'object',
        properties: {
          task: { type: 'string', description: 'What the subagent should do and report back' },
          title: { type: 'string', description: 'A short name for the subagent, shown to the user' },
          tools: {
            type: 'array',
            items: { type: 'string' },
            description: 'The tools it may use (default: all of yours except delegate)',
          },
        },
        required: ['task'],
        additionalProperties: false,
      } as const,
    },
    kind: 'other',
    // changes nothing itself: the child's own tool calls go through the permission policy
    effect: 'read',
    ownsProgress: true,
    concurrent: true,
    settlesOnAbort: true,
    title: titleOf,
    async run(input, context): Promise<ToolResult> {
      const { task, title, tools } = parseInput(input)
      const allowedTools = childTools(tools, context, deps.toolNames(context.sessionId))
      const sessions = deps.sessions()
      const { turn, callId, sessionId } = context
      const child = await sessions.forkSubagentDurable(sessionId, { turn, callId }, { title })
      const spawned: SubagentSpawned = { turn, callId, sessionId: child.id, title, task }
      const event = sessions.require(sessionId).append({ type: SUBAGENT_SPAWNED, data: { ...spawned } })
      const link: SubagentLink = {
        sessionId: child.id,
        parentSessionId: sessionId,
        callId,
        seq: event.seq,
        title,
        task,
      }
      for (const update of subagentStarted(link)) context.sendUpdate?.(update, event.seq)
      const channel = context.client.subagent?.(link) ?? unseen(context)
      const outcome = await deps.runTurn(child, {
        prompt: [{ type: 'text', text: task }],
        signal: context.signal,
        sendUpdate: channel.sendUpdate,
        client: channel.client,
        subagent: {
          maxSteps: deps.maxSteps,
          allowedTools,
          toolScope: context.sessionId,
          ceiling: deps.permissionsOf(sessionId),
        },
      })
      context.sendUpdate?.(subagentStateUpdate(child.id, idleState(outcome)), event.seq)
      const answer = finalAnswer(child, outcome)
      // A persisted child is let go once its turn is durable (its file and lock released); it
      // loads again on demand. Without persistence it stays live, or it would be lost.
      if (sessions.hasPersistence) await sessions.close(child.id)
      return answer
    },
  })
}
