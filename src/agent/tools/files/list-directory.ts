import { constants, type Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { defineTool } from '../define-tool.js'
import { pathOf, type Tool, ToolFailure } from '../tool.js'
import { openVerified } from './descriptor.js'
import { workspacePath } from './workspace-files.js'

/** Most entries one listing shows. */
export const MAX_LISTED_ENTRIES = 1000

/**
 * `list_directory {path?}`: the entries of a directory under the session's cwd (default: cwd
 * itself), sorted, directories marked with a trailing `/`, symbolic links with ` -> link`.
 */
export const listDirectoryTool: Tool = defineTool({
  spec: {
    name: 'list_directory',
    description:
      'List the entries of a directory in the workspace (default: the working directory). Directories end with "/".',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'Directory, relative to the working directory' },
      },
      additionalProperties: false,
    } as const,
  },
  kind: 'read',
  effect: 'read',
  title: (input) => `List ${pathOf(input) ?? '.'}`,
  locations: (input, cwd) => [{ path: path.resolve(cwd, pathOf(input) ?? '.') }],
  async run(input, context) {
    const requested = input.path ?? '.'
    const directory = await workspacePath(requested, context, 'read')
    let entries: Dirent[]
    try {
      // Listed through a descriptor verified to be `directory`: a swapped path lists nothing outside.
      const opened = await openVerified(directory, requested, {
        flags: constants.O_RDONLY | constants.O_DIRECTORY,
      })
      try {
        entries = await readdir(opened.child('.'), { withFileTypes: true })
      } finally {
        await opened.handle.close()
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOTDIR') throw new ToolFailure(`${requested} is not a directory`)
      if (code === 'ENOENT') throw new ToolFailure(`${requested} does not exist`)
      throw error
    }
    const names = entries
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name} -> link` : e.name))
      .sort()
    if (names.length === 0) return { output: `${requested} is empty` }
    const shown = names.slice(0, MAX_LISTED_ENTRIES)
    const note =
      names.length > shown.length ? `\n[${names.length - shown.length} more entries not shown]` : ''
    return { output: shown.join('\n') + note }
  },
})
