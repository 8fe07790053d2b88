import { assertNever } from '../../lib/assert-never.js'
import { SessionError, SessionErrorCode } from '../errors.js'
import { CLEAN_TURN_END_REASONS, isExtensionEvent, type SessionEvent } from './events.js'

/** A turn's extent in the log: `end` is undefined while the turn is open. */
export interface TurnSpan {
  readonly turn: number
  readonly start: number
  readonly end: number | undefined
}

interface OpenCall {
  readonly step: number
}

/**
 * The structural state of a log, advanced one event at a time. `check` throws without changing
 * anything; `apply` assumes `check` passed. The rules:
 * - turns do not nest, and turn numbers count up from 1 by 1;
 * - `user/message` and steps live inside the open turn, steps do not nest and count up from 1;
 * - assistant messages and tool calls live inside the open step; call ids are unique in a turn;
 * - every `tool/result` answers an open `tool/call` of the open step;
 * - `step/end` leaves no unanswered call of its step behind;
 * - `turn/end` closes the open turn; a clean reason requires no open step and no unanswered call,
 *   a cut-short reason (cancelled, error, interrupted, ...) may leave them behind;
 * - standalone and plugin events may stand anywhere; a `context/compaction` summarizes through a
 *   closed turn boundary before it.
 */
export class LogState {
  lastSeq = 0
  lastTurn = 0
  openStep: number | undefined
  private lastStep = 0
  private readonly openCalls = new Map<string, OpenCall>()
  private readonly turnCallIds = new Set<string>()
  /** Every turn, in order. Shared with forks, so only ever appended to or sliced. */
  readonly turns: TurnSpan[]

  constructor(turns: TurnSpan[] = [], lastSeq = 0) {
    this.turns = turns
    this.lastSeq = lastSeq
    this.lastTurn = turns.length > 0 ? (turns[turns.length - 1] as TurnSpan).turn : 0
  }

  get openTurn(): number | undefined {
    const last = this.turns[this.turns.length - 1]
    return last && last.end === undefined ? last.turn : undefined
  }

  /** The open tool call ids, oldest first. */
  get unansweredCalls(): string[] {
    return [...this.openCalls.keys()]
  }

  check(event: SessionEvent): void {
    if (event.seq !== this.lastSeq + 1) {
      violation(`seq ${event.seq} does not follow ${this.lastSeq}`, event, { expectedSeq: this.lastSeq + 1 })
    }
    if (isExtensionEvent(event)) return
    const open = this.openTurn
    switch (event.type) {
      case 'turn/start': {
        const { turn } = event.data
        if (open !== undefined) violation(`turn ${turn} starts inside open turn ${open}`, event)
        if (turn !== this.lastTurn + 1) violation(`turn ${turn} does not follow turn ${this.lastTurn}`, event)
        return
      }
      case 'user/message':
        this.requireTurn(event, event.data)
        if (this.openStep !== undefined) violation('user/message inside an open step', event)
        return
      case 'step/start': {
        const { step } = event.data
        this.requireTurn(event, event.data)
        if (this.openStep !== undefined)
          violation(`step ${step} starts inside open step ${this.openStep}`, event)
        if (step !== this.lastStep + 1) violation(`step ${step} does not follow step ${this.lastStep}`, event)
        return
      }
      case 'assistant/message':
        this.requireStep(event, event.data)
        return
      case 'tool/call':
        this.requireStep(event, event.data)
        if (this.turnCallIds.has(event.data.callId))
          violation(`tool call id ${event.data.callId} reused in turn`, event)
        return
      case 'tool/result':
        this.requireStep(event, event.data)
        if (!this.openCalls.has(event.data.callId))
          violation(`tool/result ${event.data.callId} answers no open tool call`, event)
        return
      case 'step/end':
        this.requireStep(event, event.data)
        if (this.openCalls.size > 0) {
          violation(`step ${event.data.step} ends with unanswered tool calls`, event, {
            callIds: this.unansweredCalls,
          })
        }
        return
      case 'turn/end': {
        const { reason } = event.data
        this.requireTurn(event, event.data)
        if (CLEAN_TURN_END_REASONS.has(reason)) {
          if (this.openStep !== undefined)
            violation(`turn ends (${reason}) with step ${this.openStep} open`, event)
          if (this.openCalls.size > 0) {
            violation(`turn ends (${reason}) with unanswered tool calls`, event, {
              callIds: this.unansweredCalls,
            })
          }
        }
        return
      }
      case 'context/compaction': {
        const { through } = event.data
        if (through >= event.seq) violation(`compaction through seq ${through} is not before it`, event)
        if (boundaryStatus(this.turns, through).open !== undefined)
          violation(`compaction through seq ${through}, inside a turn`, event, { through })
        return
      }
      case 'session/title':
      case 'context/note':
      case 'config/set':
      case 'session/directories':
      case 'session/archived':
        return
      default:
        assertNever(event, 'event')
    }
  }

  apply(event: SessionEvent): void {
    this.lastSeq = event.seq
    if (isExtensionEvent(event)) return
    switch (event.type) {
      case 'turn/start':
        this.turns.push({ turn: event.data.turn, start: event.seq, end: undefined })
        this.lastTurn = event.data.turn
        this.lastStep = 0
        this.openStep = undefined
        this.openCalls.clear()
        this.turnCallIds.clear()
        return
      case 'step/start':
        this.openStep = event.data.step
        this.lastStep = event.data.step
        return
      case 'tool/call':
        this.openCalls.set(event.data.callId, { step: event.data.step })
        this.turnCallIds.add(event.data.callId)
        return
      case 'tool/result':
        this.openCalls.delete(event.data.callId)
        return
      case 'step/end':
        this.openStep = undefined
        return
      case 'turn/end': {
        const last = this.turns[this.turns.length - 1] as TurnSpan
        this.turns[this.turns.length - 1] = { ...last, end: event.seq }
        this.openStep = undefined
        this.openCalls.clear()
        return
      }
      case 'user/message':
      case 'assistant/message':
      case 'session/title':
      case 'context/note':
      case 'config/set':
      case 'session/directories':
      case 'session/archived':
      case 'context/compaction':
        return
      default:
        assertNever(event, 'event')
    }
  }

  private requireTurn(event: SessionEvent, d: { readonly turn: number }): void {
    const open = this.openTurn
    if (open === undefined) violation(`${event.type} outside any turn`, event)
    if (d.turn !== open) violation(`${event.type} names turn ${d.turn} but turn ${open} is open`, event)
  }

  private requireStep(event: SessionEvent, d: { readonly turn: number; readonly step: number }): void {
    this.requireTurn(event, d)
    if (this.openStep === undefined) violation(`${event.type} outside any step`, event)
    if (d.step !== this.openStep)
      violation(`${event.type} names step ${d.step} but step ${this.openStep} is open`, event)
  }
}

function violation(message: string, event: SessionEvent, extra: Record<string, unknown> = {}): never {
  throw new SessionError(SessionErrorCode.INVARIANT_VIOLATION, `${message} (seq ${event.seq})`, {
    seq: event.seq,
    type: event.type,
    ...extra,
  })
}

/**
 * Where a fork at `boundary` stands: `open` is the turn that is still open after event `boundary`
 * (the latest turn/start at or before it is unmatched at it), or undefined when the prefix is closed.
 * `lastSafeBoundary` is the greatest seq at or before `boundary` that would fork.
 */
export function boundaryStatus(
  turns: readonly TurnSpan[],
  boundary: number,
): { open: TurnSpan | undefined; lastSafeBoundary: number } {
  let lo = 0
  let hi = turns.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if ((turns[mid] as TurnSpan).start <= boundary) {
      found = mid
      lo = mid + 1
    } else {
      hi = mid - 1
    }
  }
  if (found < 0) return { open: undefined, lastSafeBoundary: boundary }
  const span = turns[found] as TurnSpan
  if (span.end !== undefined && span.end <= boundary) return { open: undefined, lastSafeBoundary: boundary }
  return { open: span, lastSafeBoundary: span.start - 1 }
}

/** The turns of the prefix that ends at the closed boundary `boundary`. */
export function turnsBefore(turns: readonly TurnSpan[], boundary: number): TurnSpan[] {
  let count = 0
  while (count < turns.length && (turns[count] as TurnSpan).start <= boundary) count++
  return turns.slice(0, count)
}
