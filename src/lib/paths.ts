import path from 'node:path'

/** Whether `candidate` is `root` or lies under it (both absolute; compared as written, no symlinks resolved). */
export function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  if (relative === '') return true
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative)
}
