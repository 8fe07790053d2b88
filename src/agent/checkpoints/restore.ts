import { lineChanges } from '../../lib/line-changes.js'
import { resolveForkBoundary } from '../../session/index.js'
import { type AllowedRoots, resolveInside } from '../tools/files/confine.js'
import { type BlobName, blobNameOf, type CheckpointBlobs, isBlobName } from './blob-port.js'
import { ABSENT, type FileCheckpoint } from './checkpoint-event.js'
import { fileHistory, type VisitSession } from './file-history.js'
import type { FileCheckpoints } from './recorder.js'
import type { FileRestoreReport, FileRestoreRequest } from './restore-contract.js'
import {
  type CurrentFile,
  confinedAgain,
  type EditorFiles,
  readCurrent,
  removeFile,
  writeBack,
} from './restore-io.js'

/** The call id of the `checkpoint:file` events a restore appends for the changes it makes. */
export const RESTORE_CALL_ID = 'restore'

export interface RestoreDeps {
  readonly blobs: CheckpointBlobs
  /**
   * The directories a request named for the session (its cwd first): the only ones a restore acts
   * in. Absent: no request named any, and nothing is restored (every file is reported refused).
   */
  readonly roots?: AllowedRoots
  /** Where the restore's own changes are recorded (the session's checkpoints); absent: not recorded. */
  readonly record?: FileCheckpoints
  /** The editor's file methods for the session (absent or empty: the local disk). */
  readonly editor?: EditorFiles
  /** Reads a subagent's session, so the files its tools changed are restored too. */
  readonly visit?: VisitSession
  readonly signal?: AbortSignal
}

/** What a restore does to one file. */
type Step =
  | { readonly kind: 'write'; readonly path: string; readonly bytes: Buffer; readonly current: CurrentFile }
  | { readonly kind: 'remove'; readonly path: string; readonly current: CurrentFile }
  | { readonly kind: 'conflict'; readonly path: string; readonly reason: string }
  | { readonly kind: 'none' }

/**
 * Puts the files the session's built-in file tools changed after `boundary` (a closed boundary,
 * checked as fork checks it) back to their content at it: the content before each file's first
 * change after it. A file they created is removed. A file whose content now is not what their last
 * change wrote (someone else changed or deleted it since) is left and reported, unless `force`;
 * so is one that is now outside the session's roots or unreadable, or whose old content is no
 * longer stored. Every file is examined before anything is written; a dry run stops there and
 * reports the same. A file already at its content at the boundary is left alone and not reported.
 */
export async function restoreSessionFiles(
  request: FileRestoreRequest,
  deps: RestoreDeps,
): Promise<FileRestoreReport> {
  const { session, dryRun, force = false } = request
  const boundary = resolveForkBoundary(session, request.boundary)
  const signal = deps.signal ?? new AbortController().signal
  const editor = deps.editor ?? {}
  const history = await fileHistory(session.eventsAfter(boundary), deps.visit)
  const roots = deps.roots
  const steps: Step[] = []
  for (const [path, { first, last }] of history.files) {
    steps.push(await plan(path, first, last, { ...deps, roots, editor, signal, force }))
  }
  const report = {
    insertions: 0,
    deletions: 0,
    restored: [] as string[],
    removed: [] as string[],
    conflicts: [] as FileRestoreReport['conflicts'][number][],
  }
  for (const step of steps) {
    if (step.kind === 'none') continue
    if (step.kind === 'conflict') {
      report.conflicts.push({ path: step.path, reason: step.reason })
      continue
    }
    try {
      if (!dryRun) await apply(step, { turn: session.lastTurn, record: deps.record, editor, signal })
      ;(step.kind === 'write' ? report.restored : report.removed).push(step.path)
      const lines = lineChanges(step.kind === 'write' ? step.bytes : null, step.current.bytes)
      report.insertions += lines.insertions
      report.deletions += lines.deletions
    } catch (error) {
      report.conflicts.push({ path: step.path, reason: `could not be restored: ${messageOf(error)}` })
    }
  }
  const { insertions, deletions, ...files } = report
  return { ...files, commandsRan: history.commandsRan, insertions, deletions }
}

/**
 * Makes one change of a restore, recorded like a tool's (call id {@link RESTORE_CALL_ID}): the
 * content it replaces is kept first, so a later restore to an earlier boundary, or back, still
 * knows every state the file was in.
 */
async function apply(
  step: Extract<Step, { kind: 'write' | 'remove' }>,
  context: { turn: number; record: FileCheckpoints | undefined; editor: EditorFiles; signal: AbortSignal },
): Promise<void> {
  const change = {
    turn: Math.max(1, context.turn),
    callId: RESTORE_CALL_ID,
    path: step.path,
    before: step.current.bytes,
    after: step.kind === 'write' ? step.bytes : null,
  }
  const run =
    step.kind === 'write'
      ? () => writeBack(step, context)
      : () => removeFile(step.path, step.current.local ? step.current.local.bytes : null)
  await (context.record ? context.record.record(change, run) : run())
}

interface PlanContext extends Omit<RestoreDeps, 'roots'> {
  readonly roots: AllowedRoots | undefined
  readonly editor: EditorFiles
  readonly signal: AbortSignal
  readonly force: boolean
}

async function plan(
  path: string,
  first: FileCheckpoint,
  last: FileCheckpoint,
  context: PlanContext,
): Promise<Step> {
  const conflict = (reason: string): Step => ({ kind: 'conflict', path, reason })
  const roots = context.roots
  if (roots === undefined) {
    return conflict(
      "not restored: no request named this session's directory in this process (session/load or session/resume it with its cwd first); a path its stored file names alone is never acted on",
    )
  }
  if (!insideRoots(roots, path)) {
    return conflict(
      `not restored: outside the workspace this session was opened in (${roots.join(', ')}); a restore acts only there`,
    )
  }
  let target: string
  let current: CurrentFile
  try {
    target = await confinedAgain(roots, path)
    current = await readCurrent(target, context.editor, context.signal)
  } catch (error) {
    return conflict(messageOf(error))
  }
  const now = current.bytes === null ? ABSENT : blobNameOf(current.bytes)
  // Already as it was at the boundary (a restore done before, say): nothing to do, nothing to refuse.
  if (now === first.before) return { kind: 'none' }
  if (now !== last.after && !context.force) {
    return conflict(
      current.bytes === null
        ? 'deleted since the session last wrote it; not recreated (force to recreate it)'
        : 'changed since the session last wrote it (by someone else); not overwritten (force to overwrite it)',
    )
  }
  if (first.before === ABSENT) return { kind: 'remove', path: target, current }
  const bytes = await contentOf(first, context.blobs)
  if (bytes === undefined)
    return conflict(`its content at the boundary (${first.before}) is no longer stored`)
  return { kind: 'write', path: target, bytes, current }
}

/** The content a checkpoint kept: inline, or from the blobs (checked against its name). */
async function contentOf(change: FileCheckpoint, blobs: CheckpointBlobs): Promise<Buffer | undefined> {
  const name = change.before
  if (change.beforeText !== undefined) {
    const bytes = Buffer.from(change.beforeText, 'utf8')
    return blobNameOf(bytes) === name ? bytes : undefined
  }
  if (!isBlobName(name)) return undefined
  return blobs.get(name as BlobName).catch(() => undefined)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Whether `path` (absolute, as recorded) is one of `roots` or under one, lexically. */
function insideRoots(roots: AllowedRoots, path: string): boolean {
  try {
    resolveInside(roots, path)
    return true
  } catch {
    return false
  }
}
