import { constants } from 'node:fs'
import { open, realpath } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import type { InstructionFileData } from '../../session/index.js'

/** The file name of project instructions, as Codex, opencode, Cursor, Zed and others read it. */
export const AGENTS_FILE = 'AGENTS.md'

/** The most bytes of instructions a system prompt holds, over all files (32 KiB). */
export const MAX_INSTRUCTION_BYTES = 32 * 1024

/** Where a session's instructions files are looked for. */
export interface InstructionPlaces {
  /** The session's working directory (absolute). */
  readonly cwd: string
  /** The root of the git repository `cwd` lies in; absent: only `cwd` itself is read. */
  readonly repositoryRoot?: string
  /** The session's additional directories: each one's own `AGENTS.md` (not their parents'). */
  readonly directories: readonly string[]
  /** The user's config directory (`$XDG_CONFIG_HOME/dsh-acp`); absent: none is read. */
  readonly userConfigDir?: string
  /** The size limit over all files. Default {@link MAX_INSTRUCTION_BYTES}. */
  readonly maxBytes?: number
}

interface Candidate {
  readonly path: string
  readonly scope: InstructionFileData['scope']
  /** The directory the file must really be in (a symbolic link may not leave it); absent: any. */
  readonly within?: string
}

/**
 * The `AGENTS.md` files of a session, in prompt order (a later file wins where they disagree): the
 * user's (config directory), each additional directory's own, then the project's from the
 * repository root down to `cwd` (the closest last). A file that is missing, not a regular file or
 * unreadable is left out, and so is a project's or a directory's linked out of the repository (or
 * `cwd` outside one) or that directory; one reached twice (the same real path) is read once, at its
 * first place.
 *
 * The size limit is spent from the closest file outwards (`cwd`'s first, the user's last), so the
 * most specific instructions are the ones kept whole; a file over what is left is cut at a UTF-8
 * character boundary and marked `cut`, and files after the limit is spent are listed with no text.
 */
export async function readInstructionFiles(places: InstructionPlaces): Promise<InstructionFileData[]> {
  const ordered = candidates(places)
  const seen = new Set<string>()
  const found: { candidate: Candidate; real: string }[] = []
  for (const candidate of ordered) {
    const real = await realpath(candidate.path).catch(() => undefined)
    if (real === undefined || seen.has(real) || !(await stays(real, candidate.within))) continue
    seen.add(real)
    found.push({ candidate, real })
  }
  let budget = places.maxBytes ?? MAX_INSTRUCTION_BYTES
  const read = new Map<number, InstructionFileData>()
  for (let i = found.length - 1; i >= 0; i--) {
    const { candidate, real } = found[i] as (typeof found)[number]
    const file = await readCapped(real, budget)
    if (file === undefined) continue
    budget -= Buffer.byteLength(file.text, 'utf8')
    read.set(i, { path: candidate.path, scope: candidate.scope, ...file })
  }
  return found.flatMap((_, i) => {
    const file = read.get(i)
    return file === undefined ? [] : [file]
  })
}

function candidates(places: InstructionPlaces): Candidate[] {
  const list: Candidate[] = []
  if (places.userConfigDir !== undefined)
    list.push({ path: join(places.userConfigDir, AGENTS_FILE), scope: 'user' })
  for (const dir of places.directories)
    list.push({ path: join(dir, AGENTS_FILE), scope: 'directory', within: dir })
  const dirs = projectDirs(places.cwd, places.repositoryRoot)
  const project = dirs[0] ?? places.cwd
  for (const dir of dirs) list.push({ path: join(dir, AGENTS_FILE), scope: 'project', within: project })
  return list
}

/**
 * Whether `real` is inside the real path of `within`: a project's (or an additional directory's)
 * `AGENTS.md` linked out of it (to `~/.ssh/id_rsa`, say) is never read into a prompt.
 */
async function stays(real: string, within: string | undefined): Promise<boolean> {
  if (within === undefined) return true
  const root = await realpath(within).catch(() => undefined)
  return root !== undefined && real.startsWith(root.endsWith(sep) ? root : root + sep)
}

/** The directories from the repository root down to `cwd` (just `cwd` outside a repository). */
function projectDirs(cwd: string, root: string | undefined): string[] {
  if (root === undefined) return [cwd]
  const rel = relative(root, cwd)
  if (rel.startsWith('..') || rel.startsWith(sep)) return [cwd]
  const dirs = [cwd]
  for (let dir = cwd; dir !== root && dirname(dir) !== dir; ) {
    dir = dirname(dir)
    dirs.unshift(dir)
  }
  return dirs
}

/** A regular file's text, at most `budget` bytes of it (cut at a character boundary). */
async function readCapped(
  path: string,
  budget: number,
): Promise<Pick<InstructionFileData, 'text' | 'bytes' | 'cut'> | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    // Non-blocking, so a FIFO named AGENTS.md cannot hold the session up (it is no regular file).
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
    const info = await handle.stat()
    if (!info.isFile()) return undefined
    const want = Math.max(0, Math.min(info.size, budget))
    const buffer = Buffer.alloc(want)
    let filled = 0
    while (filled < want) {
      const { bytesRead } = await handle.read(buffer, filled, want - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    const cut = info.size > filled
    const text = cut
      ? wholeCharacters(buffer.subarray(0, filled))
      : buffer.subarray(0, filled).toString('utf8')
    return { text, bytes: info.size, cut }
  } catch {
    return undefined
  } finally {
    await handle?.close().catch(() => {})
  }
}

/** The text of `bytes`, without a UTF-8 sequence cut at its end. */
function wholeCharacters(bytes: Buffer): string {
  let end = bytes.length
  // Back up over continuation bytes to the start of the last sequence; drop it if incomplete.
  let start = end - 1
  while (start >= 0 && start > end - 4 && ((bytes[start] as number) & 0xc0) === 0x80) start--
  if (start >= 0) {
    const lead = bytes[start] as number
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
    if (start + length > end) end = start
  }
  return bytes.subarray(0, end).toString('utf8')
}
