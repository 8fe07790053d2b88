import { lstat, realpath } from 'node:fs/promises'
import path from 'node:path'
import { ToolFailure } from './tool.js'

/**
 * Resolves `requested` (relative to `cwd`, or absolute) and refuses it unless it names `cwd` itself
 * or something under it. Lexical only: `..` segments are resolved first, symlinks are not followed.
 */
export function resolveInside(cwd: string, requested: string): string {
  if (requested.includes('\0')) throw new ToolFailure('path must not contain NUL characters')
  const root = path.resolve(cwd)
  const resolved = path.resolve(root, requested)
  if (!isWithin(root, resolved)) throw outside(requested, cwd)
  return resolved
}

/**
 * {@link resolveInside}, then follows symlinks on the local disk: the real path of the target (or,
 * when it does not exist yet, of its nearest existing ancestor) must lie under the real path of
 * `cwd`. A dangling symlink is refused, since writing through it would create a file elsewhere.
 * Returns the lexically resolved path.
 */
export async function resolveInsideOnDisk(cwd: string, requested: string): Promise<string> {
  const resolved = resolveInside(cwd, requested)
  const realRoot = await realpath(path.resolve(cwd))
  let probe = resolved
  while (true) {
    const real = await realpathIfExists(probe)
    if (real !== undefined) {
      if (!isWithin(realRoot, real)) throw outside(requested, cwd, 'through a symbolic link')
      return resolved
    }
    if (await isSymlink(probe)) throw new ToolFailure(`${requested} is a dangling symbolic link: refused`)
    const parent = path.dirname(probe)
    if (parent === probe) throw outside(requested, cwd)
    probe = parent
  }
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}

async function realpathIfExists(target: string): Promise<string | undefined> {
  try {
    return await realpath(target)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
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

function outside(requested: string, cwd: string, how = ''): ToolFailure {
  return new ToolFailure(
    `${requested} is outside the session's working directory ${cwd}${how ? ` (${how})` : ''}: refused`,
  )
}
