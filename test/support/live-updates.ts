import type * as acp from '@agentclientprotocol/sdk/unstable'

/**
 * Waiting for what a client is shown of a session another process (or host) writes: the updates
 * an `AgentProcess`'s client received, and their `_meta.dsh` marks.
 */

/** `_meta.dsh` of an update: its log seq, and on a turn's last update how the turn ended. */
export type UpdateMarks = { seq?: number; turnEnd?: { seq: number; reason: string } }

export const dshOf = (u: acp.SessionNotification) =>
  (u._meta as { dsh?: UpdateMarks } | null | undefined)?.dsh

/** Anything that receives session updates: a stdio agent's client or a remote client. */
export interface UpdatesSource {
  readonly updates: readonly acp.SessionNotification[]
  /** A stdio agent's process: waiting stops with its stderr when it exits. */
  readonly child?: { readonly exitCode: number | null }
  readonly stderr?: string
}

/**
 * Resolves once an update received from index `from` on passes `done` (checked at each turn of
 * the event loop); rejects if the agent exits first.
 */
export async function until(
  source: UpdatesSource,
  done: (update: acp.SessionNotification) => boolean,
  from = 0,
): Promise<acp.SessionNotification> {
  for (;;) {
    const found = source.updates.slice(from).find(done)
    if (found) return found
    if (source.child && source.child.exitCode !== null) throw new Error(`agent exited: ${source.stderr}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The seq of a prompt's answer (`_meta.dsh.seq`). */
export const seqOf = (r: { _meta?: unknown }) => (r._meta as { dsh: { seq: number } }).dsh.seq

/** The update that marks the end of the turn whose end event is `seq`. */
export const endsTurn = (seq: number) => (u: acp.SessionNotification) => dshOf(u)?.turnEnd?.seq === seq

/** A user message chunk saying exactly `words`. */
export const saysUser = (words: string) => (u: acp.SessionNotification) =>
  u.update.sessionUpdate === 'user_message_chunk' &&
  u.update.content.type === 'text' &&
  u.update.content.text === words
