import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { SessionHeader } from '../session/header.js'
import type { SessionId } from '../session/ids.js'
import { FILE_VERSION, headerLine, parseHeader } from './file-format.js'
import { BRANCH_SUFFIX } from './store-paths.js'

/**
 * The record `<branch>.branch.json` of a rewind branch made by a link (`rewind-link.ts`): the
 * branch's file is the rewound session's old file, whose first line still names that session, so
 * the branch's own header lives here, where the link left it untouched. It is written (and
 * fdatasynced) before the branch's file exists and never changes after: every reader of
 * `<branch>.jsonl` applies it over the file's first line (see {@link sessionHeaderOf}).
 *
 * `{ version: 1, header, size, tail }`: `header` is the branch's header as a file's first line
 * would hold it; `size` the old file's size when it became the branch (where the branch's own
 * events start); `tail` those events' lines (its title when the removed part retitled the session,
 * then `session/archived {true}`), appended at `size` once the rewind committed, and again by the
 * start-up repair when a crash came before (see `rewind-repair.ts`).
 */
export interface BranchRecord {
  readonly header: SessionHeader
  readonly size: number
  readonly tail: string
}

/** A record is a few hundred bytes; anything longer than this is not one. */
const MAX_RECORD_BYTES = 64 << 10

/** The record's file text. */
export function branchRecordText(record: BranchRecord): string {
  const header = JSON.parse(headerLine(record.header)) as unknown
  return `${JSON.stringify({ version: FILE_VERSION, header, size: record.size, tail: record.tail })}\n`
}

/** Parses a record's text; undefined when it is not a whole, valid one (a torn write). */
export function parseBranchRecord(text: string, path: string, id: SessionId): BranchRecord | undefined {
  try {
    const value = JSON.parse(text) as { version?: unknown; header?: unknown; size?: unknown; tail?: unknown }
    if (
      value.version !== FILE_VERSION ||
      !Number.isSafeInteger(value.size) ||
      typeof value.tail !== 'string'
    ) {
      return undefined
    }
    const header = parseHeader(JSON.stringify(value.header), path, id)
    if (header.parentSession === undefined || header.seedLength === undefined) return undefined
    return { header, size: value.size as number, tail: value.tail }
  } catch {
    return undefined
  }
}

/** Reads the record at `path` (not followed through a symlink); undefined when there is none or it is not valid. */
export function readBranchRecord(path: string, id: SessionId): BranchRecord | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > MAX_RECORD_BYTES) return undefined
    const bytes = Buffer.alloc(stats.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0) break
      read += n
    }
    return parseBranchRecord(bytes.toString('utf8', 0, read), path, id)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * The header of session `id` whose file at `path` starts with the line `text`: that line's header
 * when it names `id`; else, for a rewind branch made by a link (its first line names the session it
 * was), its record's, when the record names `id` and that session as the parent. Throws
 * `CORRUPT_SESSION` naming the file and line 1 otherwise, as `parseHeader` does.
 */
export function sessionHeaderOf(text: string, path: string, id: SessionId): SessionHeader {
  const header = parseHeader(text, path)
  if (header.id === id) return header
  const record = readBranchRecord(branchRecordPath(path, id), id)
  if (record !== undefined && record.header.parentSession === header.id) return record.header
  return parseHeader(text, path, id)
}

/** `<dir>/<id>.branch.json` beside the session file `path`. */
function branchRecordPath(path: string, id: SessionId): string {
  return join(dirname(path), `${id}${BRANCH_SUFFIX}`)
}
