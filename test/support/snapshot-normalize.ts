import { realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseTranscriptLine, type TranscriptEntry } from '../../src/process/transcript.js'
import { normalizeInitializeVersions } from '../../src/replay/compare/normalize.js'
import type { Placeholder } from '../../src/replay/compare/placeholders.js'
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
  return snapshotPlaceholders(context).map(({ name, value }) => [value, `<${name}>`])
}

/**
 * Normalizes a transcript or store file of a snapshot scenario. The whole rule list:
 *
 * 1. The temp store directory becomes `<store>`, then the temp work directory around it `<work>`
 *    (plain text replacement, anywhere in the text).
 * 2. In a transcript line answering `initialize`, `agentInfo.version` becomes `<version>` (the
 *    replay engine's own version rule, `normalizeInitializeVersions`), so a release does not
 *    rewrite every snapshot.
 * 3. The note `run_command` appends to a result where this machine has no working bubblewrap
 *    (`\n[ran without a sandbox: bubblewrap …]`: not installed, or refused by the kernel) is
 *    removed from every string of a line, so a command's result reads the same on every machine.
 *    The note `--sandbox off` asks for names no machine and stays.
 *
 * Nothing else is touched: ids come from `--id-prefix`, times from `--fake-clock`, the cwd is
 * `<work>/project`, and JSON-RPC ids from the client's own counter. Anything else that differs
 * between runs is a determinism bug in the server, not something to normalize here. Replaying a
 * snapshot gives rule 1 to the engine as placeholders ({@link snapshotPlaceholders}, `--set`):
 * the replay's own directories go where the transcript says `<store>` and `<work>` in what the
 * client sends (the session's cwd must exist), and are compared as those names.
 */
export function normalizeSnapshotText(text: string, context: NormalizeContext): string {
  let result = text
  for (const [from, to] of pathReplacements(context)) result = result.replaceAll(from, to)
  if (!result.includes(MACHINE_SANDBOX_NOTE)) return result
  return result
    .split('\n')
    .map((line) => (line.includes(MACHINE_SANDBOX_NOTE) ? withoutSandboxNote(line) : line))
    .join('\n')
}

/** How rule 3's note starts, whatever this machine's reason (see `CommandSandbox`). */
const MACHINE_SANDBOX_NOTE = '[ran without a sandbox: bubblewrap'

/** Rule 3 as a `dsh-acp replay --rules` rule, which the replay of a snapshot applies to both sides. */
export const SANDBOX_NOTE_RULE = {
  pattern: '\\n\\[ran without a sandbox: bubblewrap[^\\n]*\\]$',
  replace: '',
} as const

const SANDBOX_NOTE = new RegExp(SANDBOX_NOTE_RULE.pattern)

/** Rule 3 on one JSON line: the note removed from each string value that ends with it. */
function withoutSandboxNote(line: string): string {
  const strip = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replace(SANDBOX_NOTE, '')
    if (Array.isArray(value)) return value.map(strip)
    if (typeof value !== 'object' || value === null) return value
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, strip(child)]))
  }
  try {
    return JSON.stringify(strip(JSON.parse(line)))
  } catch {
    return line
  }
}

/** Rule 1 as `dsh-acp replay --set` placeholders: the store inside the work directory first. */
export function snapshotPlaceholders(context: NormalizeContext): Placeholder[] {
  return [
    { name: 'store', value: context.storeDir },
    { name: 'work', value: context.workDir },
  ]
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

/** What every scenario's work directory is named after (`mkdtemp` adds six characters). */
export const SNAPSHOT_WORK_PREFIX = 'dsh-acp-snapshot-'

const ANY_WORK_DIR = (() => {
  const roots = new Set([tmpdir()])
  try {
    roots.add(realpathSync(tmpdir()))
  } catch {}
  const escaped = [...roots].map((root) =>
    join(root, SNAPSHOT_WORK_PREFIX).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  )
  return new RegExp(`(?:${escaped.join('|')})[A-Za-z0-9]{6}`, 'g')
})()

/**
 * Rule 1 for text recorded where no scenario context is at hand (the model server's request
 * bodies, and the token counts a fake model derives from them): any scenario's work directory
 * becomes `<work>`, so the text does not depend on the machine's temp directory.
 */
export function normalizeAnyWorkDir(text: string): string {
  return text.replace(ANY_WORK_DIR, '<work>')
}
