import type * as acp from '@agentclientprotocol/sdk/unstable'

/** The seq an update came from (`_meta.dsh.seq`). */
export function seqOf(notification: acp.SessionNotification): number {
  const seq = (notification._meta as { dsh?: { seq?: unknown } } | null | undefined)?.dsh?.seq
  if (typeof seq !== 'number')
    throw new Error(`update without _meta.dsh.seq: ${JSON.stringify(notification)}`)
  return seq
}

/**
 * True for updates that come from a log event (they carry `_meta.dsh.seq`); the announcements
 * sent after a session's answer (its command list, its title) come from none.
 */
export function fromLog(notification: acp.SessionNotification): boolean {
  return typeof (notification._meta as { dsh?: { seq?: unknown } } | null | undefined)?.dsh?.seq === 'number'
}

/**
 * Folds updates into what a client shows: per seq and kind, chunk texts concatenated, other
 * updates as they are. Live streaming (many deltas) and replay (one chunk per event) fold equal.
 */
export function foldUpdates(
  notifications: readonly acp.SessionNotification[],
  skipUserMessages = false,
): unknown[] {
  const folded: { seq: number; kind: string; value: unknown }[] = []
  for (const n of notifications) {
    const update = n.update as Record<string, unknown> & { sessionUpdate: string }
    if (skipUserMessages && update.sessionUpdate === 'user_message_chunk') continue
    const seq = seqOf(n)
    const last = folded[folded.length - 1]
    const content = update.content as { type?: string; text?: string } | undefined
    if (update.sessionUpdate.endsWith('_chunk') && content?.type === 'text') {
      if (last && last.seq === seq && last.kind === update.sessionUpdate) {
        last.value = `${last.value as string}${content.text}`
        continue
      }
      folded.push({ seq, kind: update.sessionUpdate, value: content.text })
      continue
    }
    folded.push({ seq, kind: update.sessionUpdate, value: update })
  }
  return folded
}

/** The text of all agent message chunks, concatenated. */
export function agentText(notifications: readonly acp.SessionNotification[]): string {
  return notifications
    .map((n) => n.update as { sessionUpdate: string; content?: { type?: string; text?: string } })
    .filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text')
    .map((u) => u.content?.text ?? '')
    .join('')
}
