import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { defineTool } from '../define-tool.js'
import { looksBinary, workspacePath } from '../files/workspace-files.js'
import { stringField, type Tool, ToolFailure } from '../tool.js'
import { walkWorkspace } from './workspace-walk.js'

export const DEFAULT_SEARCH_RESULTS = 100
export const MAX_SEARCH_RESULTS = 1000
/** Longest line shown in a result; longer lines are cut around nothing, with `…`. */
export const MAX_RESULT_LINE = 300
/** Files larger than this are not searched. */
export const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024

/**
 * `search_text {pattern, path?, glob?, ignoreCase?, maxResults?}`: lines matching a JavaScript
 * regular expression in the text files under `path` (default cwd), as `file:line: text`, skipping
 * `.git`, what `.gitignore` ignores, binary files and files over {@link MAX_SEARCHED_FILE_BYTES};
 * at most `maxResults` lines (default 100, at most 1000), each cut to {@link MAX_RESULT_LINE}.
 */
export const searchTextTool: Tool = defineTool({
  spec: {
    name: 'search_text',
    description:
      'Search file contents with a regular expression (JavaScript syntax). Returns matching lines as ' +
      '"path:line: text". Skips .git, .gitignore\'d and binary files. Optional `glob` limits the files searched.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'Regular expression' },
        path: {
          type: 'string',
          minLength: 1,
          description: 'Directory or file to search (default: the working directory)',
        },
        glob: {
          type: 'string',
          minLength: 1,
          description: 'Only files whose relative path matches this glob',
        },
        ignoreCase: { type: 'boolean', description: 'Case-insensitive match' },
        maxResults: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS },
      },
      required: ['pattern'],
      additionalProperties: false,
    } as const,
  },
  kind: 'search',
  effect: 'read',
  title: (input) => `Search for ${stringField(input, 'pattern') ?? 'text'}`,
  async run(input, context) {
    const fields = input
    let regex: RegExp
    try {
      regex = new RegExp(fields.pattern, fields.ignoreCase ? 'i' : '')
    } catch (error) {
      throw new ToolFailure(`invalid regular expression: ${(error as Error).message}`)
    }
    const limit = fields.maxResults ?? DEFAULT_SEARCH_RESULTS
    const inGlob = fields.glob ? (await import('picomatch')).default(fields.glob, { dot: true }) : () => true
    const root = await workspacePath('.', context, 'read')
    const start = await workspacePath(fields.path ?? '.', context, 'read')
    const files = (await stat(start)).isFile()
      ? oneFile(root, start)
      : walkWorkspace(root, start, context.signal)
    const lines: string[] = []
    let skipped = 0
    let more = false
    search: for await (const file of files) {
      if (!inGlob(file.relative)) continue
      const text = await readSearchable(file.absolute)
      if (text === undefined) {
        skipped++
        continue
      }
      const fileLines = text.split('\n')
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i] as string
        if (!regex.test(line)) continue
        if (lines.length === limit) {
          more = true
          break search
        }
        lines.push(`${file.relative}:${i + 1}: ${cutLine(line.replace(/\r$/, ''))}`)
      }
    }
    if (lines.length === 0) return { output: `No matches for /${fields.pattern}/` }
    const notes = [
      more && `[stopped at ${limit} matches; narrow the search or raise maxResults]`,
      skipped > 0 && `[${skipped} binary or oversized files not searched]`,
    ].filter(Boolean)
    return { output: [...lines, ...notes].join('\n') }
  },
})

async function* oneFile(root: string, file: string) {
  yield { relative: path.relative(root, file).split(path.sep).join('/'), absolute: file }
}

async function readSearchable(file: string): Promise<string | undefined> {
  try {
    if ((await stat(file)).size > MAX_SEARCHED_FILE_BYTES) return undefined
    const bytes = await readFile(file)
    return looksBinary(bytes) ? undefined : bytes.toString('utf8')
  } catch {
    return undefined
  }
}

function cutLine(line: string): string {
  return line.length > MAX_RESULT_LINE ? `${line.slice(0, MAX_RESULT_LINE)}…` : line
}
