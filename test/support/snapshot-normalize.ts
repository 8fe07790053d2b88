import { parseTranscriptLine, type TranscriptEntry } from '../../src/protocol/wire/index.js'
import { normalizeInitializeVersions } from '../../src/replay/normalize.js'
import type { UserRule } from '../../src/replay/rules.js'
import { scriptFromEntries } from '../../src/replay/script.js'

/** What varies between two runs of one scenario, and nothing else. */
export interface NormalizeContext {
  /** The scenario's temp `--store` directory. */
  readonly storeDir: string
  /** The temp directory holding the store, the transcript and any model script. */
  readonly workDir: string
}

/** Rule 1's replacements, in order. */
function pathReplacements(context: NormalizeContext): [string, string][] {
  return [
    [context.storeDir, '<store>'],
    [context.workDir, '<work>'],
  ]
}

/**
 * Normalizes a transcript or store file of a snapshot scenario. The whole rule list:
 *
 * 1. The temp store directory becomes `<store>`, then the temp work directory around it `<work>`
 *    (plain text replacement, anywhere in the text).
 * 2. In a transcript line answering `initialize`, `agentInfo.version` becomes `<version>` (the
 *    replay engine's own version rule, `normalizeInitializeVersions`), so a release does not
 *    rewrite every snapshot.
 *
 * Nothing else is touched: ids come from `--id-prefix`, times from `--fake-clock`, the cwd is a
 * fixed absolute path, and JSON-RPC ids from the client's own counter. Anything else that differs
 * between runs is a determinism bug in the server, not something to normalize here. Replaying a
 * snapshot applies rule 1 as replay rules ({@link snapshotPathRules}) on top of the engine's
 * built-in ones.
 */
export function normalizeSnapshotText(text: string, context: NormalizeContext): string {
  let result = text
  for (const [from, to] of pathReplacements(context)) result = result.replaceAll(from, to)
  return result
}

/** Rule 1 as `dsh-acp replay` rules (patterns over every string value). */
export function snapshotPathRules(context: NormalizeContext): UserRule[] {
  return pathReplacements(context).map(([from, to]) => ({
    pattern: from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    replace: to,
  }))
}

/** Rule 2 on a transcript's text (one entry per line), after rule 1. */
export function normalizeTranscript(text: string, context: NormalizeContext): string {
  const lines = normalizeSnapshotText(text, context)
    .split('\n')
    .filter((line) => line.length > 0)
  const entries = lines.map((line, index) => ({
    entry: parseTranscriptLine(line, index + 1),
    line: index + 1,
  }))
  const script = scriptFromEntries(entries)
  return script.lines
    .map((line, index) => {
      if (line.answers !== 'initialize') return lines[index]
      const entry = entries[index]?.entry as TranscriptEntry & { msg: unknown }
      const before = JSON.stringify(entry)
      normalizeInitializeVersions(entry.msg)
      const after = JSON.stringify(entry)
      return after === before ? lines[index] : after
    })
    .map((line) => `${line}\n`)
    .join('')
}
