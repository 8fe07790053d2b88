import { defineTool } from '../define-tool.js'
import { workspacePath } from '../files/workspace-files.js'
import { stringField, type Tool, ToolFailure } from '../tool.js'
import { walkWorkspace } from './workspace-walk.js'

/** Most paths one search returns. */
export const MAX_FOUND_FILES = 500

/**
 * `find_files {pattern, path?}`: the files under `path` (default cwd) whose path relative to the
 * working directory matches the glob `pattern` (`*`, `**`, `?`, `{a,b}`, `[...]`: see `compileGlob`,
 * which matches in linear time whatever the glob), skipping `.git` and what `.gitignore` ignores, at most {@link MAX_FOUND_FILES}.
 */
export const findFilesTool: Tool = defineTool({
  spec: {
    name: 'find_files',
    description:
      'Find files by glob pattern (e.g. "src/**/*.ts", "**/README.md"; *, **, ?, [...], {a,b}), relative to ' +
      'the working directory. ' +
      'Skips .git and files ignored by .gitignore.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'Glob, relative to the working directory' },
        path: {
          type: 'string',
          minLength: 1,
          description: 'Directory to search in (default: the working directory)',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    } as const,
  },
  kind: 'search',
  effect: 'read',
  title: (input) => `Find ${stringField(input, 'pattern') ?? 'files'}`,
  async run(input, context) {
    const { pattern } = input
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
      throw new ToolFailure('the pattern must be relative to the working directory, without ".." segments')
    }
    const start = await workspacePath(input.path ?? '.', context, 'read')
    // The regular expression engine is loaded on the first search, not at start.
    const { compileGlob } = await import('./patterns.js')
    const matches = compileGlob(pattern)
    const root = await workspacePath('.', context, 'read')
    const found: string[] = []
    const stats = { visited: 0, truncated: false }
    let more = false
    for await (const file of walkWorkspace(root, start, context.signal, stats)) {
      if (!matches(file.relative)) continue
      if (found.length === MAX_FOUND_FILES) {
        more = true
        break
      }
      found.push(file.relative)
    }
    if (found.length === 0) return { output: `No files match ${pattern}` }
    const notes = [
      more && `[stopped at ${MAX_FOUND_FILES} files; narrow the pattern]`,
      stats.truncated && '[the walk stopped early: the tree is very large]',
    ].filter(Boolean)
    return { output: [...found, ...notes].join('\n') }
  },
})
