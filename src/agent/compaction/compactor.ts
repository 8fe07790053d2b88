import { abortable } from '../../lib/abort.js'
import { errorMessage } from '../../lib/error-message.js'
import {
  type CoreEvent,
  compactionChunk,
  compactionEnded,
  compactionStarted,
  type ModelMessage,
  projectHistory,
  type Session,
  type SessionEvent,
  type SessionUpdate,
} from '../../session/index.js'
import { ModelServerError } from '../providers/http/model-server-error.js'
import { modelHistory } from '../turn/step/model-step.js'
import type { ModelProvider, ModelRequest, ToolSpec } from '../types.js'
import { fitSummaryRequest, summaryInstruction, withoutToolOutputs } from './summary-request.js'
import { estimateTokens } from './token-estimate.js'

/** Why a compaction was made (recorded as the event's `trigger`). */
export type CompactionTrigger = 'auto' | 'command' | 'context-length'

/** Where and how one compaction runs: the session's turn, its model and its update channel. */
export interface CompactionScope {
  readonly session: Session
  readonly provider: ModelProvider
  /** The tools the turn's requests offer: the summary request offers the same, so its prefix is cached. */
  readonly tools: readonly ToolSpec[]
  readonly model?: string
  readonly thoughtLevel?: string
  /** The turn's system prompt: the summary request sends the same, so its prefix is cached. */
  readonly system?: string
  /** The turn's signal: aborting it cancels the compaction (nothing is recorded). */
  readonly signal: AbortSignal
  readonly send: (update: SessionUpdate, seq: number) => void
  /** The model's context window in tokens, when known: the summary request is cut to fit it. */
  readonly window?: number
}

export interface CompactionAsk {
  readonly trigger: CompactionTrigger
  /** The closed boundary to summarize through: the seq before the running turn's `turn/start`. */
  readonly through: number
  /** `/compact <instructions>`: what the user wants the summary to keep. */
  readonly instructions?: string
  /** The estimated size of the request that asked for it, when already known. */
  readonly tokensBefore?: number
}

export type CompactionResult =
  | {
      readonly status: 'completed'
      readonly event: CoreEvent<'context/compaction'>
    }
  | { readonly status: 'failed' | 'cancelled'; readonly error: string }
  /** Nothing new to summarize since the last compaction (or since the session began). */
  | { readonly status: 'nothing'; readonly reason: string }

/** Tokens kept free for the summary itself when the window is known. */
export function summaryReserve(window: number): number {
  return Math.min(8192, Math.floor(window / 4))
}

/** Compaction ids used by this process, per session (a failed attempt is not in the log). */
const usedIds = new WeakMap<Session, Set<string>>()

function newCompactionId(session: Session): string {
  let used = usedIds.get(session)
  if (!used) {
    used = new Set(
      session.events().flatMap((e) => (e.type === 'context/compaction' ? [e.data.compactionId] : [])),
    )
    usedIds.set(session, used)
  }
  const base = `compaction_${session.lastSeq + 1}`
  let id = base
  for (let n = 2; used.has(id); n++) id = `${base}_${n}`
  used.add(id)
  return id
}

/** The seq the latest compaction of `events` summarizes through (0: none). */
export function compactedThrough(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as SessionEvent
    if (event.type === 'context/compaction') return event.data.through
  }
  return 0
}

/**
 * Compacts `scope.session`: asks its model (streaming, through `scope.send`) to summarize the
 * conversation through `ask.through`, then appends one `context/compaction` event. Never throws
 * for a model failure or a cancel: the result says how it ended, the wire was told (completed,
 * failed or cancelled), and nothing is appended unless it completed. When the window is known the
 * summary request is cut to fit it first (oldest tool outputs, then oldest messages); a
 * context-length answer to the summary request is retried once without any tool output.
 */
export async function compact(scope: CompactionScope, ask: CompactionAsk): Promise<CompactionResult> {
  const { session } = scope
  const events = session.events()
  const nothing = nothingToCompact(events, ask.through)
  if (nothing !== undefined) return { status: 'nothing', reason: nothing }
  const id = newCompactionId(session)
  const seq = session.lastSeq + 1
  scope.send(compactionStarted(id), seq)
  const end = (result: Exclude<CompactionResult, { status: 'completed' | 'nothing' }>) => {
    scope.send(compactionEnded(id, result), seq)
    return result
  }
  try {
    const before =
      ask.tokensBefore ??
      (await estimateTokens({
        system: scope.system ?? '',
        cwd: session.cwd,
        messages: modelHistory(session),
        tools: scope.tools,
      }))
    const { summary, fitted } = await summarize(scope, { events, ask, id, seq })
    if (scope.signal.aborted) return end({ status: 'cancelled', error: 'the compaction was cancelled' })
    if (summary === '') return end({ status: 'failed', error: 'the model answered with no summary' })
    const kept = events.slice(ask.through)
    const event = await recordCompaction(scope, ask, { id, summary, before, fitted, kept })
    const { tokensBefore, tokensAfter } = event.data
    scope.send(compactionEnded(id, { status: 'completed', summary, tokensBefore, tokensAfter }), event.seq)
    return { status: 'completed', event }
  } catch (error) {
    if (scope.signal.aborted) return end({ status: 'cancelled', error: 'the compaction was cancelled' })
    return end({ status: 'failed', error: errorMessage(error) })
  }
}

/** One summary request: the log's events, the ask, and the compaction's id and seq. */
interface SummaryRun {
  readonly events: readonly SessionEvent[]
  readonly ask: CompactionAsk
  readonly id: string
  readonly seq: number
}

/** The summary request's messages, and what was cut from them to fit. */
interface Fitted {
  readonly messages: readonly ModelMessage[]
  readonly droppedToolOutputs: number
  readonly droppedMessages: number
}

/**
 * The model's summary (trimmed) of the conversation through `ask.through`, cut to fit the window
 * when it is known, and asked once more without any tool output after a context-length answer.
 */
async function summarize(
  scope: CompactionScope,
  { events, ask, id, seq }: SummaryRun,
): Promise<{ summary: string; fitted: Fitted }> {
  const system = scope.system ?? ''
  const conversation: ModelMessage[] = [
    ...projectHistory(events.slice(0, ask.through)),
    { role: 'user', content: [{ type: 'text', text: summaryInstruction(ask.instructions) }] },
  ]
  const fitted: Fitted =
    scope.window !== undefined
      ? await fitSummaryRequest(
          conversation,
          { system, cwd: scope.session.cwd, tools: scope.tools },
          scope.window - summaryReserve(scope.window),
        )
      : { messages: conversation, droppedToolOutputs: 0, droppedMessages: 0 }
  try {
    return { summary: (await streamSummary(scope, fitted.messages, id, seq)).trim(), fitted }
  } catch (error) {
    if (scope.signal.aborted || !(error instanceof ModelServerError && error.contextLength)) throw error
    const stripped = withoutToolOutputs(fitted.messages)
    if (stripped.dropped === 0) throw error
    const refitted = {
      ...fitted,
      messages: stripped.messages,
      droppedToolOutputs: fitted.droppedToolOutputs + stripped.dropped,
    }
    return { summary: (await streamSummary(scope, refitted.messages, id, seq)).trim(), fitted: refitted }
  }
}

/** A summary made: its id, text and what was cut to fit; the tokens before; the events it keeps. */
interface MadeSummary {
  readonly id: string
  readonly summary: string
  readonly before: number
  readonly fitted: Fitted
  readonly kept: readonly SessionEvent[]
}

/** Appends the `context/compaction` event, with the tokens the history takes after it. */
async function recordCompaction(
  scope: CompactionScope,
  ask: CompactionAsk,
  { id, summary, before, fitted, kept }: MadeSummary,
): Promise<CoreEvent<'context/compaction'>> {
  const after = await estimateTokens({
    system: scope.system ?? '',
    cwd: scope.session.cwd,
    messages: [
      { role: 'summary', content: summary, userMessages: 0 },
      ...projectHistory(kept.filter((e) => e.type !== 'context/compaction')),
    ],
    tools: scope.tools,
  })
  return scope.session.append({
    type: 'context/compaction',
    data: {
      compactionId: id,
      summary,
      through: ask.through,
      model: scope.model ?? scope.provider.models?.[0]?.id ?? scope.provider.name,
      tokensBefore: before,
      tokensAfter: after,
      trigger: ask.trigger,
      ...(ask.instructions?.trim() && { instructions: ask.instructions.trim() }),
      ...(fitted.droppedToolOutputs > 0 && { droppedToolOutputs: fitted.droppedToolOutputs }),
      ...(fitted.droppedMessages > 0 && { droppedMessages: fitted.droppedMessages }),
    },
  }) as CoreEvent<'context/compaction'>
}

/**
 * Why the events through `through` hold no conversation the latest compaction does not cover;
 * undefined when they do.
 */
function nothingToCompact(events: readonly SessionEvent[], through: number): string | undefined {
  const since = compactedThrough(events.slice(0, through))
  const fresh = events.slice(since, Math.max(since, through)).filter((e) => e.type !== 'context/compaction')
  if (projectHistory(fresh).length > 0) return undefined
  return since === 0
    ? 'there is no conversation before this turn to compact'
    : 'nothing was said since the last compaction'
}

/** Streams the summary request; its text, each piece sent on as it comes. Throws the provider's failure. */
async function streamSummary(
  scope: CompactionScope,
  messages: readonly ModelMessage[],
  id: string,
  seq: number,
): Promise<string> {
  const request: ModelRequest = {
    sessionId: scope.session.id,
    cwd: scope.session.cwd,
    messages,
    tools: scope.tools,
    purpose: 'summary',
    ...(scope.system !== undefined && { system: scope.system }),
    ...(scope.model !== undefined && { model: scope.model }),
    ...(scope.thoughtLevel !== undefined && { thoughtLevel: scope.thoughtLevel }),
  }
  let text = ''
  for await (const chunk of abortable(scope.provider.stream(request, scope.signal), scope.signal)) {
    if (chunk.type !== 'text' || chunk.text === '') continue
    text += chunk.text
    for (const update of compactionChunk(id, chunk.text)) scope.send(update, seq)
  }
  return text
}
