/**
 * How much of one model response is kept, in characters (UTF-16 code units; for ASCII, bytes).
 * Past any of them the response is cut off and the turn ends with an error saying which limit.
 */
export interface StreamLimits {
  /** One server-sent event (its `data:` lines together), or a non-streamed JSON body. */
  readonly maxEventChars: number
  /** Everything one response streams: text, thoughts, tool names and tool arguments. */
  readonly maxAnswerChars: number
  /** The arguments of one tool call. */
  readonly maxToolArgumentChars: number
}

const MIB = 1024 * 1024

/** The limits unless configured: 8 MiB per event, 8 MiB per answer, 4 MiB per tool argument. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxEventChars: 8 * MIB,
  maxAnswerChars: 8 * MIB,
  maxToolArgumentChars: 4 * MIB,
}

/** Which limit a response went past. */
export type StreamLimitKind = 'event' | 'answer' | 'tool argument'

/** Thrown while reading a response that went past one of its {@link StreamLimits}. */
export class StreamLimitError extends Error {
  override name = 'StreamLimitError'
  constructor(
    readonly kind: StreamLimitKind,
    readonly limit: number,
  ) {
    super(`the ${kind} went past ${sizeText(limit)}`)
  }
}

/** `8 MiB`, `512 KiB` or `300 characters`: a limit as a person reads it. */
export function sizeText(chars: number): string {
  if (chars >= MIB && chars % (MIB / 4) === 0) return `${chars / MIB} MiB`
  if (chars >= 1024 && chars % 256 === 0) return `${chars / 1024} KiB`
  return `${chars} characters`
}
