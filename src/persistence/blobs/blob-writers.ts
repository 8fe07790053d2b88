import { readdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAlive, processStartTime } from '../session-lock.js'

/** `.process.<pid>.<start time, 0 where unknown>`: a process that writes blobs into this directory. */
const MARKER = /^\.process\.(\d{1,10})\.(\d{1,20})$/

/** The blob directories this process marked, unmarked when it exits. */
const marked = new Set<string>()

function markerName(pid: number): string {
  return `.process.${pid}.${processStartTime(pid) ?? '0'}`
}

function unmarkAll(): void {
  for (const path of marked) {
    try {
      unlinkSync(path)
    } catch {
      // Gone already: a stale marker is told apart by its pid anyway.
    }
  }
  marked.clear()
}

/**
 * Marks this process as a writer of blobs into `dir` (an empty `.process.<pid>.<start time>`,
 * 0600), before its first blob there, until it exits. A killed process leaves its marker: one whose
 * pid is dead, or now runs a process started at another time, is stale and removed when seen.
 * Never throws: an unmarked writer is only spared the grace by others (see {@link otherWriters}).
 */
export function markWriter(dir: string): void {
  const path = join(dir, markerName(process.pid))
  if (marked.has(path)) return
  try {
    writeFileSync(path, '', { mode: 0o600, flag: 'w' })
  } catch {
    return
  }
  if (marked.size === 0) process.once('exit', unmarkAll)
  marked.add(path)
}

/**
 * Whether another live process writes blobs into `dir` (its marker is there); stale markers seen
 * on the way are removed. An unreadable directory counts as yes.
 */
export function otherWriters(dir: string): boolean {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return true
  }
  let others = false
  for (const name of names) {
    const match = MARKER.exec(name)
    if (!match || Number(match[1]) === process.pid) continue
    const pid = Number(match[1])
    const start = processStartTime(pid)
    if (isAlive(pid) && (match[2] === '0' || start === undefined || start === match[2])) {
      others = true
      continue
    }
    try {
      unlinkSync(join(dir, name))
    } catch {
      // Another process removed it first.
    }
  }
  return others
}
