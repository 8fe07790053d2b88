import { readTextFileTool } from './read-text-file.js'
import type { Tool } from './tool.js'
import { writeTextFileTool } from './write-text-file.js'

export { type AllowedRoots, allowedRoots, resolveInside, resolveReal } from './confine.js'
export { readTextFileTool, selectLines } from './read-text-file.js'
export * from './tool.js'
export { writeTextFileTool } from './write-text-file.js'

/** The tools a session gets by default: `read_text_file`, `write_text_file`. */
export function builtinTools(): Tool[] {
  return [readTextFileTool, writeTextFileTool]
}
