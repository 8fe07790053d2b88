import { createRequire } from 'node:module'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }

/** The package version that rule 2 replaces. */
export const PACKAGE_VERSION = version

/** What varies between two runs of one scenario, and nothing else. */
export interface NormalizeContext {
  /** The scenario's temp `--store` directory. */
  readonly storeDir: string
  /** The temp directory holding the store, the transcript and any model script. */
  readonly workDir: string
}

/**
 * Normalizes a transcript or store file of a snapshot scenario. The whole rule list:
 *
 * 1. The temp store directory becomes `<store>`, then the temp work directory around it `<work>`
 *    (plain text replacement, anywhere in the text).
 * 2. In a transcript line, `msg.result.agentInfo.version` (the `initialize` answer) becomes
 *    `<version>`, so a release does not rewrite every snapshot.
 *
 * Nothing else is touched: ids come from `--id-prefix`, times from `--fake-clock`, the cwd is a
 * fixed absolute path, and JSON-RPC ids from the client's own counter. Anything else that differs
 * between runs is a determinism bug in the server, not something to normalize here.
 */
export function normalizeSnapshotText(text: string, context: NormalizeContext): string {
  return text.replaceAll(context.storeDir, '<store>').replaceAll(context.workDir, '<work>')
}

/** Rule 2 on a transcript's text (one `{dir, msg}` JSON value per line), after rule 1. */
export function normalizeTranscript(text: string, context: NormalizeContext): string {
  return normalizeSnapshotText(text, context)
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const entry = JSON.parse(line) as { msg?: { result?: { agentInfo?: { version?: unknown } } } }
      const agentInfo = entry.msg?.result?.agentInfo
      if (agentInfo?.version !== PACKAGE_VERSION) return line
      agentInfo.version = '<version>'
      return JSON.stringify(entry)
    })
    .map((line) => `${line}\n`)
    .join('')
}
