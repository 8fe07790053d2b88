import { lstat, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { isWithin } from '../../../lib/paths.js'
import { ToolFailure } from '../tool.js'

/**
 * The directories a session's file tools may touch: its `cwd` first (relative paths resolve
 * against it), then any additional directories. All absolute.
 */
export type AllowedRoots = readonly [cwd: string, ...additional: string[]]

/** The roots of a tool call: the session's cwd, then its additional directories. */
export function allowedRoots(context: {
  readonly cwd: string
  readonly additionalDirectories?: readonly string[]
}): AllowedRoots {
  return [context.cwd, ...(context.additionalDirectories ?? [])]
}

/**
 * Resolves `requested` (relative to the first root, or absolute) and refuses it unless it names a
 * root or something under one. Lexical only: `..` segments are resolved first, symlinks are not
 * followed (see {@link resolveReal} for that).
 */
export function resolveInside(roots: AllowedRoots, requested: string): string {
  if (requested.includes('\0')) throw new ToolFailure('path must not contain NUL characters')
  const lexicalRoots = roots.map((root) => path.resolve(root))
  const resolved = path.resolve(lexicalRoots[0] as string, requested)
  if (!lexicalRoots.some((root) => isWithin(root, resolved))) throw outside(requested, roots)
  return resolved
}

export type Access = 'read' | 'write'

/**
 * {@link resolveInside}, then resolves symlinks on our side, whoever does the file I/O afterwards
 * (the local disk or the editor through `fs/*`): returns the real path of the target (for a file
 * that does not exist yet, the real path of its nearest existing ancestor joined with the rest),
 * which must lie under the real path of a root. A dangling symlink is refused, since writing through
 * it would create a file elsewhere. For `write`, an existing target must be a regular file with a
 * single hard link: a second link may live outside every root, and writing would change it there.
 */
export async function resolveReal(roots: AllowedRoots, requested: string, access: Access): Promise<string> {
  const resolved = resolveInside(roots, requested)
  const realRoots = await Promise.all(roots.map((root) => nearestReal(path.resolve(root))))
  const { target, exists } = await nearestReal(resolved, requested)
  if (!realRoots.some((root) => isWithin(root.target, target))) {
    throw outside(requested, roots, 'through a symbolic link')
  }
  if (access === 'write' && exists) await assertWritableFile(requested, target)
  return target
}

/**
 * The real path of `lexical`, or, when it does not exist, the real path of its nearest existing
 * ancestor joined with the rest (a root that does not exist on this disk resolves the same way, so
 * paths under it compare as they would once it exists). With `requested`, a dangling symlink on the
 * way is refused.
 */
async function nearestReal(
  lexical: string,
  requested?: string,
): Promise<{ target: string; exists: boolean }> {
  let probe = lexical
  const rest: string[] = []
  while (true) {
    const real = await realpathIfExists(probe)
    if (real !== undefined) return { target: path.join(real, ...rest), exists: rest.length === 0 }
    if (requested !== undefined && (await isSymlink(probe))) {
      throw new ToolFailure(`${requested} is a dangling symbolic link: refused`)
    }
    const parent = path.dirname(probe)
    if (parent === probe) return { target: lexical, exists: false }
    rest.unshift(path.basename(probe))
    probe = parent
  }
}

async function assertWritableFile(requested: string, target: string): Promise<void> {
  const info = await stat(target)
  if (!info.isFile()) throw new ToolFailure(`${requested} is not a regular file: refused`)
  if (info.nlink > 1) {
    throw new ToolFailure(
      `${requested} has ${info.nlink} hard links, which may lie outside the working directory: refused`,
    )
  }
}

async function realpathIfExists(target: string): Promise<string | undefined> {
  try {
    return await realpath(target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
}

async function isSymlink(target: string): Promise<boolean> {
  try {
    return (await lstat(target)).isSymbolicLink()
  } catch {
    return false
  }
}

function outside(requested: string, roots: AllowedRoots, how = ''): ToolFailure {
  const where =
    roots.length === 1
      ? `the session's working directory ${roots[0]}`
      : `the allowed directories ${roots.join(', ')}`
  return new ToolFailure(`${requested} is outside ${where}${how ? ` (${how})` : ''}: refused`)
}
