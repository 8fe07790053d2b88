import { renameSync, writeFileSync } from 'node:fs'
import { isObject } from '../lib/is.js'
import { formatTranscriptEntry, type TranscriptEntry } from '../process/transcript.js'
import type { AgentExit } from './agent-exit.js'
import { type AcpProtocolVersion, validateAcpMessage } from './compare/acp-schema.js'
import { compareConnection, type Difference, type Placement } from './compare/compare.js'
import { Normalizer } from './compare/normalize.js'
import { type Placeholder, placeholderRules } from './compare/placeholders.js'
import type { CompiledRule } from './compare/rules.js'
import { playConnection } from './engine/engine.js'
import type { AgentLaunch } from './engine/live-agent.js'
import type { LiveEntry } from './engine/live-wire.js'
import type { Script } from './script.js'

export interface ReplayOptions {
  readonly script: Script
  /** The agent for each connection (0-based); usually the same command every time. */
  readonly launch: (connection: number) => AgentLaunch
  readonly rules?: readonly CompiledRule[]
  /** `--set NAME=VALUE` (see `Placeholder`). */
  readonly placeholders?: readonly Placeholder[]
  readonly looseOrder?: boolean
  /** Check every agent message against the official ACP schema (stable or unstable per method). */
  readonly validate?: boolean
  /** Milliseconds of silence from the agent before an expected message counts as not coming. */
  readonly timeoutMs: number
}

/** An agent message that breaks the ACP schema, with where it stands in the transcript. */
export interface Violation {
  readonly connection: number
  readonly line?: number
  readonly afterLine?: number
  readonly what: string
  readonly errors: readonly string[]
}

export interface ReplayReport {
  readonly equal: boolean
  readonly differences: readonly Difference[]
  readonly violations: readonly Violation[]
  readonly connections: readonly {
    readonly exit: AgentExit
    readonly stderr: string
    readonly completed: boolean
  }[]
  /** Every message of the run, both directions, in wire order. */
  readonly live: readonly LiveEntry[]
}

/**
 * Replays a transcript against an agent (see `playConnection` for how each connection is played)
 * and compares the agent's side with the transcript after normalization (see `Normalizer`).
 * Connections run one after the other, each against a fresh agent process. Rejects with
 * `ReplayStartError` when an agent cannot be started.
 */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const placeholders = options.placeholders ?? []
  const rules = [...placeholderRules(placeholders), ...(options.rules ?? [])]
  const recordedNormalizer = new Normalizer(rules)
  const recorded = new Map<number, unknown>()
  for (const line of options.script.lines) {
    if (line.msg !== undefined)
      recorded.set(line.line, recordedNormalizer.normalize(line.msg, line.dir, line.method ?? line.answers))
    else recorded.set(line.line, { raw: Buffer.isBuffer(line.raw) ? line.raw.toString('base64') : line.raw })
  }
  const liveNormalizer = new Normalizer(rules)
  const live: LiveEntry[] = []
  const differences: Difference[] = []
  const violations: Violation[] = []
  const connections: ReplayReport['connections'][number][] = []
  for (const [connection, lines] of options.script.connections.entries()) {
    const first = live.length
    const result = await playConnection({
      connection,
      lines,
      launch: options.launch(connection),
      timeoutMs: options.timeoutMs,
      normalizer: liveNormalizer,
      live,
      recorded,
      placeholders,
    })
    connections.push({ exit: result.exit, stderr: result.stderr, completed: result.completed })
    const liveHere = live.slice(first)
    // A run that stopped early is compared up to the line it stopped before; the rest was not replayed.
    const stoppedAt = result.completed ? undefined : result.problems.at(-1)?.atLine
    const played = stoppedAt === undefined ? lines : lines.filter((l) => l.line < stoppedAt)
    const notPlayed = lines.length - played.length
    const compared = compareConnection({
      connection,
      recordedLines: played,
      recorded,
      live: liveHere,
      looseOrder: options.looseOrder ?? false,
    })
    for (const [index, problem] of result.problems.entries()) {
      const last = index === result.problems.length - 1 && notPlayed > 0
      differences.push({
        kind: problem.kind,
        connection,
        ...(problem.line !== undefined && { line: problem.line }),
        ...(problem.atLine !== undefined && { atLine: problem.atLine }),
        what: last
          ? `${problem.message} (${notPlayed} transcript lines from line ${stoppedAt} on were not replayed)`
          : problem.message,
      })
    }
    differences.push(...compared.differences)
    if (options.validate) violations.push(...schemaViolations(connection, liveHere, compared.placements))
    if (!result.completed) break
  }
  return {
    equal: differences.length === 0 && violations.length === 0,
    differences,
    violations,
    connections,
    live,
  }
}

/**
 * The agent messages of one connection that break the ACP schema of the protocol version the
 * agent chose in its `initialize` answer (v1 unless it answered `protocolVersion: 2`): the stable
 * schema for stable methods, the unstable draft for the rest.
 */
function schemaViolations(
  connection: number,
  live: readonly LiveEntry[],
  placements: ReadonlyMap<LiveEntry, Placement>,
): Violation[] {
  const protocol = chosenProtocol(live)
  const violations: Violation[] = []
  for (const entry of live) {
    if (entry.dir !== 'out') continue
    const errors =
      entry.msg === undefined
        ? ['not JSON']
        : validateAcpMessage(entry.msg, {
            schema: 'auto',
            protocol,
            ...(entry.answers !== undefined && { method: entry.answers }),
          })
    if (errors.length === 0) continue
    const place = placements.get(entry)
    violations.push({
      connection,
      ...(place?.line !== undefined ? { line: place.line } : { afterLine: place?.afterLine ?? 0 }),
      what: entry.method ?? (entry.answers !== undefined ? `response to ${entry.answers}` : entry.kind),
      errors,
    })
  }
  return violations
}

/** The protocol version the agent's `initialize` answer chose on one connection (1 without one). */
function chosenProtocol(live: readonly LiveEntry[]): AcpProtocolVersion {
  const answer = live.find((entry) => entry.dir === 'out' && entry.answers === 'initialize')
  const result = isObject(answer?.msg) ? answer.msg.result : undefined
  return isObject(result) && result.protocolVersion === 2 ? 2 : 1
}

/**
 * `--update`: writes the run as the new transcript (both directions, as they went over the wire,
 * with `ms` when the old transcript had it), through a temp file renamed into place. The values of
 * `placeholders` are written as `<NAME>` again.
 */
export function writeUpdatedTranscript(
  file: string,
  report: ReplayReport,
  timed: boolean,
  placeholders: readonly Placeholder[] = [],
): void {
  const unfill = placeholderRules(placeholders)
  const text = report.live
    .map((entry) => {
      const ms = timed ? { ms: entry.ms } : {}
      const msg = unfill.reduce((value, rule) => rule.apply(value, undefined, entry.dir), entry.msg)
      const body: TranscriptEntry =
        entry.msg !== undefined
          ? { dir: entry.dir, ...ms, msg }
          : Buffer.isBuffer(entry.raw)
            ? { dir: entry.dir, ...ms, rawBase64: entry.raw.toString('base64') }
            : { dir: entry.dir, ...ms, raw: entry.raw ?? '' }
      return `${formatTranscriptEntry(body)}\n`
    })
    .join('')
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, text)
  renameSync(temp, file)
}
