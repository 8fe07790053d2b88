import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { defineTool } from '../define-tool.js'
import { looksBinary } from '../files/local-files.js'
import { workspacePath } from '../files/workspace-files.js'
import { stringField, type Tool } from '../tool.js'
import { Pacer } from './pacer.js'
import type { TextPattern } from './text-pattern.js'
import { type WalkedFile, walkWorkspace } from './workspace-walk.js'

export const DEFAULT_SEARCH_RESULTS = 100
export const MAX_SEARCH_RESULTS = 1000
/** Longest line shown in a result; longer lines are cut around nothing, with `…`. */
export const MAX_RESULT_LINE = 300
/** Files larger than this are not searched. */
export const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024

/**
 * `search_text {pattern, path?, glob?, ignoreCase?, maxResults?}`: lines matching a regular
 * expression (RE2 via re2js, linear time: see `compileTextPattern`) in the text files under `path`
 * (default cwd), in walk order, as `file:line: text`, skipping `.git`, what `.gitignore` ignores,
 * binary files and files over {@link MAX_SEARCHED_FILE_BYTES}; at most `maxResults` lines (default
 * 100, at most 1000), each cut to {@link MAX_RESULT_LINE}. The search yields to the event loop
 * every few milliseconds and stops when the turn's signal aborts.
 */
export const searchTextTool: Tool = defineTool({
  spec: {
    name: 'search_text',
    description:
      'Search file contents with a regular expression (JavaScript/RE2 syntax, without backreferences or ' +
      'lookaround). Returns matching lines as "path:line: text". Skips .git, .gitignore\'d and binary files. ' +
      'Optional `glob` (*, **, ?, [...], {a,b}) limits the files searched.',
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
    // The regular expression engine is loaded on the first search, not at start.
    const { compileGlob, compileTextPattern } = await import('./patterns.js')
    const regex = compileTextPattern(fields.pattern, fields.ignoreCase === true)
    const limit = fields.maxResults ?? DEFAULT_SEARCH_RESULTS
    const inGlob = fields.glob ? compileGlob(fields.glob) : () => true
    const root = await workspacePath('.', context, 'read')
    const start = await workspacePath(fields.path ?? '.', context, 'read')
    const files = (await stat(start)).isFile()
      ? oneFile(root, start)
      : walkWorkspace(root, start, context.signal)
    const pacer = new Pacer(context.signal)
    const found: Found = { lines: [], tooLong: 0, more: false }
    const search: Search = { regex, limit, found, pacer }
    let skipped = 0
    for await (const file of files) {
      if (!inGlob(file.relative)) continue
      const text = readSearchable(file.absolute)
      if (text === undefined) {
        skipped++
        continue
      }
      await searchFile(file.relative, text, search)
      if (found.more) break
      if (pacer.due()) await pacer.rest()
    }
    if (found.lines.length === 0 && found.tooLong === 0)
      return { output: `No matches for /${fields.pattern}/` }
    const notes = [
      found.more && `[stopped at ${limit} matches; narrow the search or raise maxResults]`,
      skipped > 0 && `[${skipped} binary or oversized files not searched]`,
      found.tooLong > 0 &&
        `[${found.tooLong} lines too long for this pattern not searched; simplify the pattern]`,
    ].filter(Boolean)
    if (found.lines.length === 0) notes.unshift(`No matches for /${fields.pattern}/`)
    return { output: [...found.lines, ...notes].join('\n') }
  },
})

interface Found {
  readonly lines: string[]
  tooLong: number
  more: boolean
}

/** One search over the workspace: its pattern, its limit, what it found so far, its pacing. */
interface Search {
  readonly regex: TextPattern
  readonly limit: number
  readonly found: Found
  /** Gives the event loop its turns between lines. */
  readonly pacer: Pacer
}

/** Adds the matching lines of one file to `found` (setting `more` once past `limit`). */
async function searchFile(
  relative: string,
  text: string,
  { regex, limit, found, pacer }: Search,
): Promise<void> {
  let lineNumber = 0
  let from = 0
  while (from < text.length || (from === 0 && text.length === 0)) {
    const end = text.indexOf('\n', from)
    const stop = end === -1 ? text.length : end
    const line = text.slice(from, stop)
    lineNumber++
    from = stop + 1
    if (!regex.affordable(line)) found.tooLong++
    else if (regex.test(line)) {
      if (found.lines.length === limit) {
        found.more = true
        return
      }
      found.lines.push(`${relative}:${lineNumber}: ${cutLine(line.replace(/\r$/, ''))}`)
    }
    if (((lineNumber & 63) === 0 || line.length > 4096) && pacer.due()) await pacer.rest()
  }
}

async function* oneFile(root: string, file: string): AsyncGenerator<WalkedFile> {
  yield { relative: path.relative(root, file).split(path.sep).join('/'), absolute: file }
}

/** One buffer for every read: a file is searched before the next is read. */
let readBuffer: Buffer | undefined

/**
 * The text of a regular file of at most {@link MAX_SEARCHED_FILE_BYTES} that does not look binary,
 * else undefined (never throws). Synchronous on purpose: one open, fstat, read and close per file
 * is an order of magnitude faster than the promise API for the small files a tree is made of, each
 * call takes microseconds on a local disk, and the search rests between files (see `Pacer`). The
 * open does not block on a FIFO swapped in after the walk saw a file.
 */
function readSearchable(file: string): string | undefined {
  let fd: number | undefined
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
    const info = fstatSync(fd)
    if (!info.isFile() || info.size > MAX_SEARCHED_FILE_BYTES) return undefined
    readBuffer ??= Buffer.allocUnsafe(MAX_SEARCHED_FILE_BYTES + 1)
    let length = 0
    for (;;) {
      const read = readSync(fd, readBuffer, length, readBuffer.length - length, null)
      if (read === 0) break
      length += read
      if (length > MAX_SEARCHED_FILE_BYTES) return undefined
    }
    const bytes = readBuffer.subarray(0, length)
    return looksBinary(bytes) ? undefined : bytes.toString('utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function cutLine(line: string): string {
  return line.length > MAX_RESULT_LINE ? `${line.slice(0, MAX_RESULT_LINE)}…` : line
}
