import path from 'node:path'
import type { JsonValue } from '../../../session/index.js'
import type { ToolCallLocation } from '../../types.js'
import { defineTool } from '../define-tool.js'
import { fieldOf, pathOf, stringField, type Tool } from '../tool.js'
import { readWorkspaceText } from './workspace-files.js'

/**
 * `read_text_file {path, line?, limit?}`: a text file's content, from 1-based `line` for `limit`
 * lines. Through the editor (`fs/read_text_file`) when the client can, so unsaved buffers are seen;
 * otherwise from the local disk. Either way the path must lie under the session's cwd (on disk,
 * symlinks included); binary and oversized files get a message instead of their bytes.
 */
export const readTextFileTool: Tool = defineTool({
  spec: {
    name: 'read_text_file',
    description:
      "Read a text file in the user's workspace. `path` is relative to the working directory (or absolute " +
      'inside it). Optional `line` (1-based first line) and `limit` (number of lines) select a range.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the working directory' },
        line: { type: 'integer', minimum: 1, description: 'First line to read (1-based)' },
        limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines to read' },
      },
      required: ['path'],
      additionalProperties: false,
    } as const,
  },
  kind: 'read',
  effect: 'read',
  title: (input) => `Read ${pathOf(input) ?? 'file'}`,
  locations: (input, cwd) => fileLocation(input, cwd),
  async run(input, context) {
    const { text } = await readWorkspaceText(input.path, context)
    return { output: selectLines(text, input.line, input.limit) }
  },
})

/** The location of a tool input's `path` (and `line`), made absolute against `cwd`. */
export function fileLocation(input: JsonValue, cwd: string): ToolCallLocation[] {
  const requested = stringField(input, 'path')
  if (requested === undefined) return []
  const line = fieldOf(input, 'line')
  return [
    {
      path: path.resolve(cwd, requested),
      ...(typeof line === 'number' && Number.isSafeInteger(line) && { line }),
    },
  ]
}

/** Lines `line .. line+limit-1` (1-based) of `text`, keeping their line endings. */
export function selectLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text
  const lines = text.split(/(?<=\n)/)
  const start = (line ?? 1) - 1
  const end = limit === undefined ? lines.length : start + limit
  return lines.slice(start, end).join('')
}
