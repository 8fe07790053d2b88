import type { SessionId } from '../../session/ids.js'
import { type CopyStore, type ScannedSession, SessionTaken, type StoredHead } from './copy-store.js'
import { digestOf, scanSession } from './scan.js'

/** What a copy did, counted; `problems` lists the sessions it could not copy, and why. */
export interface CopyOutcome {
  copied: number
  present: number
  events: number
  blobsCopied: number
  blobsMissing: number
  readonly problems: string[]
}

/**
 * `dsh-acp store copy`: copies every session of `from` into `to`, parents before the sessions that
 * reference them (so a database target references a parent's rows instead of copying them), each
 * session's blobs before it, each session whole or not at all; then reads it back from `to` and
 * checks its digest against the source's. A session `to` holds already with the same digest is
 * skipped (a copy run again after an interruption finishes it); one with another digest is a
 * conflict, reported and left alone. `say` hears one line per session.
 */
export async function copyStores(
  from: CopyStore,
  to: CopyStore,
  say: (line: string) => void,
): Promise<CopyOutcome> {
  const outcome: CopyOutcome = {
    copied: 0,
    present: 0,
    events: 0,
    blobsCopied: 0,
    blobsMissing: 0,
    problems: [],
  }
  const heads = new Map<SessionId, StoredHead>()
  for (const id of await from.ids()) {
    try {
      const head = await from.head(id)
      if (head) heads.set(id, head)
    } catch (error) {
      problem(outcome, say, id, (error as Error).message)
    }
  }
  for (const head of parentsFirst(heads)) {
    try {
      await copyOne({ from, to, outcome, say }, head)
    } catch (error) {
      problem(outcome, say, head.id, (error as Error).message)
    }
  }
  return outcome
}

function problem(outcome: CopyOutcome, say: (line: string) => void, id: SessionId, message: string): void {
  outcome.problems.push(`${id}: ${message}`)
  say(`FAILED   ${id}: ${message}`)
}

/** A copy under way: between which stores, what it counts, and who hears its lines. */
interface CopyRun {
  readonly from: CopyStore
  readonly to: CopyStore
  readonly outcome: CopyOutcome
  readonly say: (line: string) => void
}

async function copyOne(run: CopyRun, head: StoredHead): Promise<void> {
  const { from, to, outcome, say } = run
  const scanned = await scanSession(from, head)
  if (scanned.tornBytes > 0)
    say(
      `warning  ${head.id}: ${scanned.tornBytes} bytes after its last complete line (a torn tail) not copied`,
    )
  if (await alreadyThere(to, scanned, outcome, say)) return
  await copyBlobs(run, scanned)
  try {
    await to.write(scanned, from.lines(head.id))
  } catch (error) {
    if (error instanceof SessionTaken && (await alreadyThere(to, scanned, outcome, say))) return
    throw error
  }
  const back = await digestOf(to, head.id)
  if (back !== scanned.digest)
    throw new Error(`read back from ${to.name} with sha256 ${back}, not the source's ${scanned.digest}`)
  outcome.copied++
  outcome.events += scanned.lastSeq
  say(`copied   ${head.id}  ${scanned.lastSeq} events  sha256 ${scanned.digest}  verified`)
}

/** Whether `to` holds the session already: the same (skipped, counted) or another (a conflict: throws). */
async function alreadyThere(
  to: CopyStore,
  scanned: ScannedSession,
  outcome: CopyOutcome,
  say: (line: string) => void,
): Promise<boolean> {
  const there = await digestOf(to, scanned.head.id)
  if (there === undefined) return false
  if (there !== scanned.digest) {
    throw new Error(
      `${to.name} already holds a different session with this id (sha256 ${there}, the source's is ${scanned.digest}); not copied`,
    )
  }
  outcome.present++
  say(`present  ${scanned.head.id}  ${scanned.lastSeq} events  sha256 ${scanned.digest}  verified`)
  return true
}

async function copyBlobs(run: CopyRun, scanned: ScannedSession): Promise<void> {
  const { from, to, outcome, say } = run
  for (const name of scanned.blobs) {
    if (await to.getBlob(name).catch(() => undefined)) continue
    const bytes = await from.getBlob(name)
    if (bytes === undefined) {
      outcome.blobsMissing++
      say(
        `warning  ${scanned.head.id}: its checkpoint blob ${name} is not in ${from.name} (copied without it)`,
      )
      continue
    }
    const put = await to.putBlob(bytes)
    if (put !== name) throw new Error(`blob ${name} was stored as ${put}`)
    outcome.blobsCopied++
  }
}

/** The sessions with every parent they name (that is among them) before them. */
function parentsFirst(heads: ReadonlyMap<SessionId, StoredHead>): StoredHead[] {
  const ordered: StoredHead[] = []
  const placed = new Set<SessionId>()
  const place = (head: StoredHead, path: Set<SessionId>) => {
    if (placed.has(head.id) || path.has(head.id)) return
    path.add(head.id)
    const parent = head.header.parentSession
    const above = parent === undefined ? undefined : heads.get(parent)
    if (above) place(above, path)
    placed.add(head.id)
    ordered.push(head)
  }
  for (const head of heads.values()) place(head, new Set())
  return ordered
}
