import { Context } from 'cordis'
import { type AgentConfig, agentPlugin } from '../../src/agent/service.js'
import type { ClientBridge, ContentBlock, TurnRequest } from '../../src/agent/types.js'
import {
  createSequentialIdGenerator,
  isWholeMessage,
  projectUpdates,
  type Session,
  type SessionUpdate,
  sessionsPlugin,
  WHOLE_MESSAGE_CHUNKS,
} from '../../src/session/index.js'

/**
 * Test support (no test framework inside): a started cordis Context with the real session store
 * (fixed clock, sequential ids) and the agent, plus recorders for live updates.
 */
export async function startAgent(config: AgentConfig, setup?: (ctx: Context) => void): Promise<Context> {
  const ctx = new Context()
  ctx.plugin(sessionsPlugin, { clock: () => 1_700_000_000_000, idGenerator: createSequentialIdGenerator() })
  setup?.(ctx)
  ctx.plugin(agentPlugin, config)
  await ctx.start()
  return ctx
}

export interface LiveUpdate {
  readonly update: SessionUpdate
  readonly seq: number
}

/** A turn request whose live updates are recorded in `live`. */
export interface RecordedRequest extends TurnRequest {
  readonly live: LiveUpdate[]
  readonly controller: AbortController
  /** Resolves with the first live update that `match` accepts. */
  waitFor(match: (update: LiveUpdate) => boolean): Promise<LiveUpdate>
}

export function request(prompt: string | ContentBlock[], client: ClientBridge = {}): RecordedRequest {
  const live: LiveUpdate[] = []
  const waiters: { match: (u: LiveUpdate) => boolean; resolve: (u: LiveUpdate) => void }[] = []
  const controller = new AbortController()
  return {
    prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt,
    signal: controller.signal,
    client,
    controller,
    live,
    sendUpdate(update, seq) {
      const entry = { update, seq }
      live.push(entry)
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(entry)) waiter.resolve(entry)
        else waiters.push(waiter)
      }
    },
    waitFor(match) {
      const found = live.find(match)
      if (found) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ match, resolve }))
    },
  }
}

/** Text of a chunk update (`agent_message_chunk`, `agent_thought_chunk`, ...), else undefined. */
function chunkText(update: SessionUpdate): string | undefined {
  if (
    update.sessionUpdate !== 'agent_message_chunk' &&
    update.sessionUpdate !== 'agent_thought_chunk' &&
    update.sessionUpdate !== 'user_message_chunk'
  )
    return undefined
  return update.content.type === 'text' ? update.content.text : undefined
}

/**
 * Per seq and per update kind: the concatenated chunk texts, and the non-chunk updates as JSON.
 * `user_message_chunk` (never sent live), `usage_update` and `in_progress` tool call updates (live
 * only: a replay shows where each call ended, not its way there) are left out.
 */
export function updatesBySeq(updates: readonly LiveUpdate[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const chunks = new Map<string, string>()
  for (const { update, seq } of updates.flatMap(asChunks)) {
    const kind = update.sessionUpdate
    if (
      kind === 'user_message_chunk' ||
      kind === 'usage_update' ||
      ('status' in update && update.status === 'in_progress')
    )
      continue
    const text = chunkText(update)
    if (text !== undefined) {
      chunks.set(`${seq} ${kind}`, (chunks.get(`${seq} ${kind}`) ?? '') + text)
      continue
    }
    const list = out[seq] ?? []
    list.push(JSON.stringify(update))
    out[seq] = list
  }
  for (const [key, text] of chunks) {
    const seq = key.slice(0, key.indexOf(' '))
    const list = out[seq] ?? []
    list.push(`${key.slice(key.indexOf(' ') + 1)}: ${text}`)
    out[seq] = list.sort()
  }
  for (const list of Object.values(out)) list.sort()
  return out
}

/** A whole message (a replay's) as the chunks a live turn streams: one per block. */
function asChunks(live: LiveUpdate): LiveUpdate[] {
  const { update, seq } = live
  if (!isWholeMessage(update)) return [live]
  return update.content.map((content) => ({
    seq,
    update: {
      sessionUpdate: WHOLE_MESSAGE_CHUNKS[update.sessionUpdate],
      content,
      messageId: update.messageId,
    },
  }))
}

/** What `session/load` would replay for `session`, in the shape of {@link updatesBySeq}. */
export function replayBySeq(session: Session): Record<string, string[]> {
  return updatesBySeq(
    projectUpdates(session.id, session.events()).map((n) => ({
      update: n.update,
      seq: n._meta?.dsh.seq ?? 0,
    })),
  )
}
