import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { WireEntry } from './wire-audit.js'

/** The `session/update` variant of a notification, loosely typed for assertions. */
export type AnyUpdate = Record<string, unknown> & { readonly sessionUpdate: string }

/** The updates of one kind (`agent_message_chunk`, `tool_call`, ...), with their `_meta.dsh.seq`. */
export function updatesOfKind(
  notifications: readonly acp.SessionNotification[],
  kind: string,
): { update: AnyUpdate; seq: unknown }[] {
  return notifications
    .filter((n) => n.update.sessionUpdate === kind)
    .map((n) => ({
      update: n.update as AnyUpdate,
      seq: (n._meta as { dsh?: { seq?: unknown } } | null | undefined)?.dsh?.seq,
    }))
}

/** The texts of the chunks of one kind, in order (one per wire message). */
export function chunkTexts(notifications: readonly acp.SessionNotification[], kind: string): string[] {
  return updatesOfKind(notifications, kind).map(
    ({ update }) => (update.content as { text?: string } | undefined)?.text ?? '',
  )
}

type RecordedBody = { readonly body: { readonly [key: string]: unknown } | undefined } | undefined

/**
 * The conversation a recorded chat-completions request carried: its `messages` after the agent's
 * own system prompt, which must come first (throws when it does not, or there are no messages).
 */
export function messagesOf(request: RecordedBody): unknown[] {
  const messages = request?.body?.messages
  if (!Array.isArray(messages)) throw new Error(`request body without messages: ${JSON.stringify(request)}`)
  const [first, ...conversation] = messages as { role?: string; content?: string }[]
  if (first?.role !== 'system' || !first.content?.startsWith('You are dsh-acp')) {
    throw new Error(`request without the agent's system prompt first: ${JSON.stringify(first)}`)
  }
  return conversation
}

/** The names of the tools a recorded request offered, sorted. */
export function toolNamesOf(request: RecordedBody): string[] {
  const tools = request?.body?.tools
  if (!Array.isArray(tools)) return []
  return tools.map((tool: { function?: { name?: string } }) => String(tool.function?.name)).sort()
}

/** Requests the agent sent to the client (`session/request_permission`, `fs/...`), in order. */
export function agentRequests(entries: readonly WireEntry[], method?: string): Record<string, unknown>[] {
  return entries
    .filter((e) => e.dir === 'out')
    .map((e) => e.message as Record<string, unknown>)
    .filter(
      (m) => typeof m?.method === 'string' && 'id' in m && (method === undefined || m.method === method),
    )
}

/**
 * A short label per agent-written wire message, in order: the method of requests and
 * notifications (`session/update` as `update:<kind>`), `response` for answers. Shows the order
 * in which the client saw a tool call's pieces.
 */
export function outgoingLabels(entries: readonly WireEntry[]): string[] {
  return entries
    .filter((e) => e.dir === 'out')
    .map((e) => e.message as Record<string, unknown>)
    .map((m) => {
      if (m?.method === 'session/update') {
        return `update:${(m.params as { update: { sessionUpdate: string } }).update.sessionUpdate}`
      }
      return typeof m?.method === 'string' ? m.method : 'response'
    })
}

/** A promise with its resolver, for a test to release a held step. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {}
  const promise = new Promise<T>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

/** Resolves once `condition` holds (polled every 5 ms); the test's own timeout bounds the wait. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5))
}
