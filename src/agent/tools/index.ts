import { askUserTool } from '../questions/ask-user.js'
import { createRunCommandTool, runCommandTool } from './command/run-command.js'
import type { CommandSandbox } from './command/sandbox.js'
import { editTextFileTool } from './files/edit-text-file.js'
import { listDirectoryTool } from './files/list-directory.js'
import { readTextFileTool } from './files/read-text-file.js'
import { writeTextFileTool } from './files/write-text-file.js'
import { findFilesTool } from './search/find-files.js'
import { searchTextTool } from './search/search-text.js'
import type { Tool } from './tool.js'

export { runCommandTool } from './command/run-command.js'
export { CommandSandbox, type SandboxConfig } from './command/sandbox.js'
export { SANDBOX_MODES, type SandboxMode } from './command/sandbox-mode.js'
export { type AllowedRoots, allowedRoots, resolveInside, resolveReal } from './files/confine.js'
export { applyEdits, editTextFileTool } from './files/edit-text-file.js'
export { listDirectoryTool } from './files/list-directory.js'
export { readTextFileTool, selectLines } from './files/read-text-file.js'
export { writeTextFileTool } from './files/write-text-file.js'
export * from './registry.js'
export { findFilesTool } from './search/find-files.js'
export { searchTextTool } from './search/search-text.js'
export * from './tool.js'

/**
 * The tools every session gets: reading, finding, searching, editing files, running commands
 * (local commands in `sandbox`; default: `auto`, hiding nothing beyond its own rules) and asking
 * the user (offered only with an editor that shows forms).
 */
export function builtinTools(options: { readonly sandbox?: CommandSandbox } = {}): Tool[] {
  return [
    readTextFileTool,
    listDirectoryTool,
    findFilesTool,
    searchTextTool,
    editTextFileTool,
    writeTextFileTool,
    options.sandbox ? createRunCommandTool(options.sandbox) : runCommandTool,
    askUserTool,
  ]
}
