/** One step of an alignment: `a[i]` equals `b[j]`, or `a[i]` only, or `b[j]` only. */
export type AlignStep =
  | { readonly op: 'equal'; readonly a: number; readonly b: number }
  | { readonly op: 'delete'; readonly a: number }
  | { readonly op: 'insert'; readonly b: number }

/** Beyond this many differences the rest is reported as deleted and inserted without searching. */
const MAX_EDITS = 2000

/**
 * A shortest edit script from `a` to `b` (Myers' O((N+M)D) algorithm), in order. Items are
 * compared with `===`, so pass canonical strings. When more than {@link MAX_EDITS} edits are
 * needed, the common prefix and suffix are kept and the middle is all delete then insert.
 */
export function align(a: readonly string[], b: readonly string[]): AlignStep[] {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB))
  const steps: AlignStep[] = []
  for (let i = 0; i < start; i++) steps.push({ op: 'equal', a: i, b: i })
  for (const step of middle) {
    if (step.op === 'equal') steps.push({ op: 'equal', a: step.a + start, b: step.b + start })
    else if (step.op === 'delete') steps.push({ op: 'delete', a: step.a + start })
    else steps.push({ op: 'insert', b: step.b + start })
  }
  for (let i = 0; i < a.length - endA; i++) steps.push({ op: 'equal', a: endA + i, b: endB + i })
  return steps
}

function myers(a: readonly string[], b: readonly string[]): AlignStep[] {
  const n = a.length
  const m = b.length
  const max = n + m
  if (max === 0) return []
  // Diagonals k stay within [-d, d] and d within the limit: memory is O(limit²), not O(n·limit).
  const limit = Math.min(max, MAX_EDITS)
  const offset = limit + 1
  const v = new Int32Array(2 * limit + 3)
  const trace: Int32Array[] = []
  const search: Search = { trace, offset, n, m }
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) return backtrack(search, d)
    }
  }
  return [
    ...a.map((_, i) => ({ op: 'delete' as const, a: i })),
    ...b.map((_, j) => ({ op: 'insert' as const, b: j })),
  ]
}

/** A finished forward search: the furthest x per diagonal before each round, for sequences of `n` and `m` items. */
interface Search {
  readonly trace: readonly Int32Array[]
  /** Where diagonal 0 sits in each row of `trace`. */
  readonly offset: number
  readonly n: number
  readonly m: number
}

/** The edit script of a search that reached the end in round `last`, walked back from the end. */
function backtrack({ trace, offset, n, m }: Search, last: number): AlignStep[] {
  const steps: AlignStep[] = []
  let x = n
  let y = m
  for (let d = last; d > 0; d--) {
    const v = trace[d] as Int32Array
    const k = x - y
    const down = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
    const prevK = down ? k + 1 : k - 1
    const prevX = v[offset + prevK] as number
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      x--
      y--
      steps.push({ op: 'equal', a: x, b: y })
    }
    if (down) {
      y--
      steps.push({ op: 'insert', b: y })
    } else {
      x--
      steps.push({ op: 'delete', a: x })
    }
  }
  while (x > 0 && y > 0) {
    x--
    y--
    steps.push({ op: 'equal', a: x, b: y })
  }
  return steps.reverse()
}
