import type { Cost } from '../../session/index.js'
import { type FileReader, readAt } from '../fs/file-io.js'

/**
 * How the lines recording the total so far continue after their seq (the writer's key order): a
 * `turn/end`'s, and a rewind's marker's (what the session had spent when rewound).
 */
const MARKERS = [Buffer.from(',"type":"turn/end",'), Buffer.from(',"type":"rewind:marker",')]
const TOTAL_TYPES = new Set(['turn/end', 'rewind:marker'])
/** How much of a file's end is searched: a turn/end further back than this lists without a cost. */
export const TAIL_COST_WINDOW = 64 * 1024
const FIRST_WINDOW = 16 * 1024
const NEWLINE = 0x0a

/**
 * The session's own cost as its last `turn/end` (or rewind marker) within the last {@link TAIL_COST_WINDOW} bytes of
 * the event lines `[from, to)` records it (see `ownCost`: each `turn/end` holds the total so far).
 * At most two reads (the last 16 KiB, then the window), whatever the file's length: a listing never
 * reads a whole session. Undefined when that `turn/end` has no cost, is inherited (`seq <= inherited`), is not a
 * complete parsable line, or lies further back (a session whose last turn was followed by more
 * than the window of standalone events; its cost shows again after its next turn).
 */
export async function tailCost(
  file: FileReader,
  from: number,
  to: number,
  inherited: number,
): Promise<Cost | undefined> {
  let start = to
  let bytes: Buffer = Buffer.alloc(0)
  let at = -1
  // The last 16 KiB first (a listing has just read them for the last line), then the whole window.
  for (const window of [FIRST_WINDOW, TAIL_COST_WINDOW]) {
    start = Math.max(from, to - window)
    if (to <= start) return undefined
    bytes = await readAt(file, start, to - start)
    at = Math.max(...MARKERS.map((marker) => bytes.lastIndexOf(marker)))
    // Found, with its line's start inside what was read (or nothing more to read).
    if ((at !== -1 && bytes.lastIndexOf(NEWLINE, at) !== -1) || start === from) break
  }
  if (at === -1) return undefined
  const lineStart = bytes.lastIndexOf(NEWLINE, at) + 1
  if (lineStart === 0 && start !== from) return undefined
  const lineEnd = bytes.indexOf(NEWLINE, at)
  if (lineEnd === -1) return undefined
  try {
    const event = JSON.parse(bytes.toString('utf8', lineStart, lineEnd)) as {
      seq?: unknown
      type?: unknown
      data?: { cost?: { amount?: unknown; currency?: unknown } }
    }
    const cost = event.data?.cost
    if (
      typeof event.type !== 'string' ||
      !TOTAL_TYPES.has(event.type) ||
      typeof event.seq !== 'number' ||
      event.seq <= inherited
    )
      return undefined
    if (typeof cost?.amount !== 'number' || typeof cost.currency !== 'string') return undefined
    return { amount: cost.amount, currency: cost.currency }
  } catch {
    return undefined
  }
}
