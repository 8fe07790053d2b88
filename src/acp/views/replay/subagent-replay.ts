import { idleState, subagentAnnouncement, subagentStateUpdate, turnOutcome } from '../../../agent/index.js'
import {
  type CoreEvent,
  extensionData,
  type SessionEvent,
  type SessionHeader,
  type SessionUpdate,
  type SessionUpdateNotification,
  SUBAGENT_SPAWNED,
  type SubagentSpawned,
  type SubagentState,
  UpdateProjector,
} from '../../../session/index.js'
import type { ViewCall } from '../view-call.js'

/**
 * How a `session/load` replay sends its updates to a client with the unstable `subagents`
 * capability, or undefined for any other client (whose replay shows the parent's linking
 * `tool_call_update` only, as it saw live).
 */
export function subagentReplay(call: ViewCall): SubagentReplay | undefined {
  return call.view.features.subagents ? new SubagentReplay(call) : undefined
}

/**
 * Replays each delegation the way a client with the `subagents` capability saw it live (see
 * `openSubagentChannel`). At the parent's `subagent:spawned` (while its delegate call is open): the
 * `subagent_update` that announces the child (`running`), the parent's linking `tool_call_update`,
 * then the child's own updates of the turn it ran for the call, under the child's session id, and
 * a last `subagent_update` reporting it `idle` with the stop reason of that turn's `turn/end`.
 * Parent updates carry the seq of `subagent:spawned`, the child's those of its own events, as live.
 *
 * Only that turn of the child is read: from the first event after its seed (where the parent's
 * delegating turn began) to its `turn/end`; the seed is skipped unparsed, nothing after that turn
 * is read, and the child is not loaded. The parent's later updates wait until the child's went out.
 *
 * Fallback: when the child's log cannot be read (file gone, unreadable, corrupt, or not the
 * subagent of this call), the replay still completes: after whatever of the child could be read,
 * the last `subagent_update` has state `unknown` (ACP: activity not observable) with the reason in
 * the state's `_meta.dsh.reason`. A child whose log ends inside that turn (the process died) is
 * shown as its own load will end it: open tool calls failed, then `idle` with `endReason`
 * `interrupted`. A child still at work in this process gets no last update.
 */
export class SubagentReplay {
  /** The seq of the parent's last `turn/start`: a child forked in that turn has a seed just before it. */
  private turnStart = 0
  /** The sends not yet made, in order, while a child is being read. */
  private pending: Promise<void> | undefined

  constructor(private readonly call: ViewCall) {}

  /**
   * Sends the updates one parent event projects to (in order after everything sent before it).
   * The promise paces the replay's read: it resolves when the output took them. Updates sent at
   * once, within this call, name `event` as where they came from (see `ViewCall.notify`).
   */
  send(event: SessionEvent, updates: readonly SessionUpdateNotification[]): Promise<void> | undefined {
    if (event.type === 'turn/start') this.turnStart = event.seq
    const spawned = updates.length > 0 ? extensionData(event, SUBAGENT_SPAWNED) : undefined
    if (spawned === undefined && this.pending === undefined) return this.notifyAll(updates, event)
    const turnStart = this.turnStart
    const step =
      spawned !== undefined
        ? () => this.delegation(event, spawned, updates, turnStart)
        : () => this.notifyAll(updates)
    const next: Promise<void> = (this.pending ?? Promise.resolve()).then(step)
    this.pending = next
    void next.then(() => {
      if (this.pending === next) this.pending = undefined
    })
    return next
  }

  /**
   * A parent event whose updates the client was sent already (an early load's head, which ends
   * before any delegation): only where its turn started is kept.
   */
  shown(event: SessionEvent): void {
    if (event.type === 'turn/start') this.turnStart = event.seq
  }

  /** Resolves once everything given to {@link send} was sent. */
  drained(): Promise<void> {
    return this.pending ?? Promise.resolve()
  }

  private notifyAll(
    updates: readonly SessionUpdateNotification[],
    from?: SessionEvent,
  ): Promise<void> | undefined {
    let sent: Promise<void> | undefined
    for (const update of updates) sent = this.call.notify(update, from)
    return sent
  }

  private async delegation(
    event: SessionEvent,
    spawned: SubagentSpawned,
    links: readonly SessionUpdateNotification[],
    turnStart: number,
  ): Promise<void> {
    const parentId = (links[0] as SessionUpdateNotification).sessionId
    const toParent = (update: SessionUpdate) =>
      this.call.notify({ sessionId: parentId, update, _meta: { dsh: { seq: event.seq } } })
    void toParent(subagentAnnouncement(spawned))
    this.notifyAll(links)
    let state: SubagentState | undefined
    try {
      state = await this.childTurn(spawned, parentId, turnStart)
    } catch (error) {
      const reason = `the log of subagent ${spawned.sessionId} could not be read: ${(error as Error).message}`
      state = { state: 'unknown', _meta: { dsh: { reason } } }
    }
    if (state !== undefined) await toParent(subagentStateUpdate(spawned.sessionId, state))
  }

  /** Sends the child's updates of the delegated turn; resolves the state it ended in (none while it runs). */
  private async childTurn(
    spawned: SubagentSpawned,
    parentId: string,
    turnStart: number,
  ): Promise<SubagentState | undefined> {
    const childId = spawned.sessionId
    let projector: UpdateProjector | undefined
    const projectorFor = (header: SessionHeader) => {
      if (
        header.parentSession !== parentId ||
        header.subagent?.callId !== spawned.callId ||
        header.seedLength !== turnStart - 1
      ) {
        throw new Error(
          `session ${childId} is not the subagent that call ${spawned.callId} of ${parentId} forked at seq ${turnStart - 1}`,
        )
      }
      return new UpdateProjector(childId, { headerTitle: header.title ?? spawned.title })
    }
    let end: CoreEvent<'turn/end'> | undefined
    let openTurn: number | undefined
    let lastSeq = turnStart - 1
    const header = await this.call.sessions.visitEvents(childId, turnStart, (event, header) => {
      projector ??= projectorFor(header)
      lastSeq = event.seq
      if (event.type === 'turn/start') openTurn = event.data.turn
      else if (event.type === 'turn/end') end = event
      const sent = this.notifyAll(projector.updatesFor(event))
      const more = end === undefined
      return sent ? sent.then(() => more) : more
    })
    projector ??= projectorFor(header)
    if (end !== undefined) return idleState(turnOutcome(end.seq, end.data))
    // Live here and not ended: the delegation is still at work (its view sends the rest).
    if (this.call.sessions.get(childId) !== undefined) return undefined
    if (openTurn === undefined) throw new Error(`session ${childId} holds no turn after its seed`)
    // Cut off by a crash: its own load ends the turn `interrupted`, failing the calls left open.
    const interrupted = {
      seq: lastSeq + 1,
      type: 'turn/end',
      time: header.createdAt,
      data: { turn: openTurn, reason: 'interrupted' },
    } as const
    await this.notifyAll(projector.updatesFor(interrupted))
    return idleState(turnOutcome(interrupted.seq, interrupted.data))
  }
}
