import fc from 'fast-check'
import type { AnyEventInput, JsonValue } from '../../src/session/log/events.js'

/**
 * An independent model of the session log rules (DESIGN.md, "The session store"), written for the
 * tests without the store's code: which structurally well-formed event may come next. Used both to
 * generate random valid logs and as the oracle for random appends.
 */
export class LogModel {
  lastTurn = 0
  turn: number | undefined
  step: number | undefined
  lastStep = 0
  readonly openCalls: string[] = []
  readonly usedCallIds = new Set<string>()

  accepts(input: AnyEventInput): boolean {
    const d = input.data as Record<string, unknown>
    const inTurn = this.turn !== undefined && d.turn === this.turn
    const inStep = inTurn && this.step !== undefined && d.step === this.step
    switch (input.type) {
      case 'turn/start':
        return this.turn === undefined && d.turn === this.lastTurn + 1
      case 'user/message':
        return inTurn && this.step === undefined
      case 'step/start':
        return inTurn && this.step === undefined && d.step === this.lastStep + 1
      case 'assistant/message':
        return inStep
      case 'tool/call':
        return inStep && !this.usedCallIds.has(d.callId as string)
      case 'tool/result':
        return inStep && this.openCalls.includes(d.callId as string)
      case 'step/end':
        return inStep && this.openCalls.length === 0
      case 'turn/end':
        return inTurn && (!CLEAN_REASONS.includes(d.reason as string) || this.step === undefined)
      default:
        return true
    }
  }

  apply(input: AnyEventInput): void {
    const d = input.data as Record<string, unknown>
    switch (input.type) {
      case 'turn/start':
        this.turn = d.turn as number
        this.lastTurn = this.turn
        this.lastStep = 0
        this.usedCallIds.clear()
        return
      case 'step/start':
        this.step = d.step as number
        this.lastStep = this.step
        return
      case 'tool/call':
        this.openCalls.push(d.callId as string)
        this.usedCallIds.add(d.callId as string)
        return
      case 'tool/result':
        this.openCalls.splice(this.openCalls.indexOf(d.callId as string), 1)
        return
      case 'step/end':
        this.step = undefined
        return
      case 'turn/end':
        this.turn = undefined
        this.step = undefined
        this.openCalls.length = 0
        return
      default:
        return
    }
  }
}

export const CLEAN_REASONS = ['completed', 'max-tokens', 'max-turn-requests', 'refusal']
export const CUT_SHORT_REASONS = ['cancelled', 'error', 'interrupted', 'disposed']

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length] as T

/** Standalone and plugin events: valid anywhere. */
function standalone(n: number): AnyEventInput {
  return pick<AnyEventInput>(
    [
      { type: 'session/title', data: { title: `title ${n}` } },
      { type: 'context/note', data: { text: `note ${n}` } },
      {
        type: 'config/set',
        data: { option: pick(['mode', 'model', 'thought_level'], n), value: `v${n % 3}` },
      },
      { type: 'metrics:sample', data: { n, tags: ['a', { deep: [n] }] } },
    ],
    n >> 2,
  )
}

/** The valid next events in the model's state; `n` varies their content. */
export function validMoves(m: LogModel, n: number): AnyEventInput[] {
  const turn = m.turn as number
  const step = m.step as number
  const moves: AnyEventInput[] = [standalone(n)]
  if (m.turn === undefined) {
    moves.push(
      { type: 'turn/start', data: { turn: m.lastTurn + 1 } },
      { type: 'turn/start', data: { turn: m.lastTurn + 1 } },
    )
    return moves
  }
  const cut: AnyEventInput = { type: 'turn/end', data: { turn, reason: pick(CUT_SHORT_REASONS, n) } }
  if (m.step === undefined) {
    moves.push(
      { type: 'user/message', data: { turn, content: [{ type: 'text', text: `user ${n}` }] } },
      { type: 'step/start', data: { turn, step: m.lastStep + 1 } },
      { type: 'step/start', data: { turn, step: m.lastStep + 1 } },
      { type: 'turn/end', data: { turn, reason: pick(CLEAN_REASONS, n) } },
      cut,
    )
    return moves
  }
  const thought = n % 3 === 0 ? { thought: `thinking ${n}` } : {}
  moves.push(
    { type: 'assistant/message', data: { turn, step, content: n % 5 === 0 ? '' : `text ${n}`, ...thought } },
    {
      type: 'tool/call',
      data: { turn, step, callId: `c${m.usedCallIds.size + 1}`, name: 'tool', input: { n } },
    },
  )
  const open = m.openCalls[n % Math.max(1, m.openCalls.length)]
  if (open !== undefined) {
    const output: JsonValue = n % 2 ? `out ${n}` : { lines: [n, n + 1] }
    const result = { type: 'tool/result', data: { turn, step, callId: open, output, isError: n % 7 === 0 } }
    moves.push(result as AnyEventInput, result as AnyEventInput)
  } else {
    moves.push({ type: 'step/end', data: { turn, step } }, { type: 'step/end', data: { turn, step } })
  }
  if (n % 3 === 0 || m.openCalls.length > 0) moves.push(cut)
  return moves
}

/** Turns a list of choices into a valid log: each choice picks one of the valid moves. */
export function buildValidLog(choices: readonly number[]): AnyEventInput[] {
  const model = new LogModel()
  const inputs: AnyEventInput[] = []
  for (const choice of choices) {
    const moves = validMoves(model, choice >> 4)
    const input = pick(moves, choice)
    model.apply(input)
    inputs.push(input)
  }
  return inputs
}

/** Random valid logs of up to `maxLength` events, possibly ending inside an open turn or step. */
export function validLogArbitrary(maxLength = 60): fc.Arbitrary<AnyEventInput[]> {
  return fc.array(fc.nat({ max: 1 << 16 }), { maxLength, size: 'max' }).map(buildValidLog)
}

/** Structurally random but well-shaped events: the model decides whether each may be appended. */
export function randomEventArbitrary(): fc.Arbitrary<AnyEventInput> {
  const n = fc.integer({ min: 1, max: 4 })
  const callId = fc.constantFrom('c1', 'c2', 'c3', 'zz')
  const reason = fc.constantFrom(...CLEAN_REASONS, ...CUT_SHORT_REASONS)
  return fc.oneof(
    n.map((turn) => ({ type: 'turn/start', data: { turn } })),
    n.map((turn) => ({ type: 'user/message', data: { turn, content: [{ type: 'text', text: 'u' }] } })),
    fc.tuple(n, n).map(([turn, step]) => ({ type: 'step/start', data: { turn, step } })),
    fc.tuple(n, n).map(([turn, step]) => ({ type: 'assistant/message', data: { turn, step, content: 'a' } })),
    fc.tuple(n, n, callId).map(([turn, step, id]) => ({
      type: 'tool/call',
      data: { turn, step, callId: id, name: 't', input: null },
    })),
    fc
      .tuple(n, n, callId)
      .map(([turn, step, id]) => ({ type: 'tool/result', data: { turn, step, callId: id, output: 'o' } })),
    fc.tuple(n, n).map(([turn, step]) => ({ type: 'step/end', data: { turn, step } })),
    fc.tuple(n, reason).map(([turn, r]) => ({ type: 'turn/end', data: { turn, reason: r } })),
    fc.constant({ type: 'plugin:any', data: { x: 1 } }),
  ) as fc.Arbitrary<AnyEventInput>
}
