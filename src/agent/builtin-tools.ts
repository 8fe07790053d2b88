import { askUserTool } from './questions/ask-user.js'
import { createRunCommandTool, runCommandTool } from './tools/command/run-command.js'
import type { CommandSandbox } from './tools/command/sandbox.js'
import { editTextFileTool } from './tools/files/edit-text-file.js'
import { listDirectoryTool } from './tools/files/list-directory.js'
import { readTextFileTool } from './tools/files/read-text-file.js'
import { writeTextFileTool } from './tools/files/write-text-file.js'
import { findFilesTool } from './tools/search/find-files.js'
import { searchTextTool } from './tools/search/search-text.js'
import type { Tool } from './tools/tool.js'

// The tool set is assembled here, above tools/: a feature's tool (ask_user, from questions/) joins
// the built-in ones without tools/ depending on the feature.

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
