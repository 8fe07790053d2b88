import { editTextFileTool } from './edit-text-file.js'
import { findFilesTool } from './find-files.js'
import { listDirectoryTool } from './list-directory.js'
import { readTextFileTool } from './read-text-file.js'
import { runCommandTool } from './run-command.js'
import { searchTextTool } from './search-text.js'
import type { Tool } from './tool.js'
import { writeTextFileTool } from './write-text-file.js'

export { type AllowedRoots, allowedRoots, resolveInside, resolveReal } from './confine.js'
export { applyEdits, editTextFileTool } from './edit-text-file.js'
export { findFilesTool } from './find-files.js'
export { listDirectoryTool } from './list-directory.js'
export { readTextFileTool, selectLines } from './read-text-file.js'
export * from './registry.js'
export { runCommandTool } from './run-command.js'
export { searchTextTool } from './search-text.js'
export * from './tool.js'
export { writeTextFileTool } from './write-text-file.js'

/** The tools every session gets: reading, finding, searching, editing files and running commands. */
export function builtinTools(): Tool[] {
  return [
    readTextFileTool,
    listDirectoryTool,
    findFilesTool,
    searchTextTool,
    editTextFileTool,
    writeTextFileTool,
    runCommandTool,
  ]
}
