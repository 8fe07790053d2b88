import { readFile } from 'node:fs/promises'
import type { JsonValue } from '../../session/index.js'
import { raceAbort } from '../abort.js'
import { allowedRoots, resolveReal } from './confine.js'
import { inputObject, optionalPositiveInt, requiredString, type Tool, type ToolContext } from './tool.js'

/**
 * `read_text_file {path, line?, limit?}`: a text file's content, from 1-based `line` for `limit`
 * lines. Through the editor (`fs/read_text_file`) when the client can, so unsaved buffers are seen;
 * otherwise from the local disk. Either way the path must lie under the session's cwd, symlinks
 * resolved on our side first (see `resolveReal`).
 */
export const readTextFileTool: Tool = {
  spec: {
    name: 'read_text_file',
    description:
      "Read a text file in the user's workspace. `path` is relative to the working directory (or absolute " +
      'inside it). Optional `line` (1-based first line) and `limit` (number of lines) select a range.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the working directory' },
        line: { type: 'integer', minimum: 1, description: 'First line to read (1-based)' },
        limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines to read' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  kind: 'read',
  title: (input) => `Read ${pathOf(input) ?? 'file'}`,
  async run(input, context) {
    const fields = inputObject(input)
    const requested = requiredString(fields, 'path')
    const line = optionalPositiveInt(fields, 'line')
    const limit = optionalPositiveInt(fields, 'limit')
    const text = await readWhole(requested, context)
    return { output: selectLines(text, line, limit) }
  },
}

async function readWhole(requested: string, context: ToolContext): Promise<string> {
  const { client, signal } = context
  const target = await resolveReal(allowedRoots(context), requested, 'read')
  if (client.readTextFile) return client.readTextFile(target, signal)
  return raceAbort(readFile(target, { encoding: 'utf8', signal }), signal)
}

/** Lines `line .. line+limit-1` (1-based) of `text`, keeping their line endings. */
export function selectLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text
  const lines = text.split(/(?<=\n)/)
  const start = (line ?? 1) - 1
  const end = limit === undefined ? lines.length : start + limit
  return lines.slice(start, end).join('')
}

/** The `path` of a tool input, if it has one. */
export function pathOf(input: JsonValue): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined
  const value = (input as { readonly [key: string]: JsonValue }).path
  return typeof value === 'string' && value !== '' ? value : undefined
}
