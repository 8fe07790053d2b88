import { statSync } from 'node:fs'
import { basename, isAbsolute, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpServerConfig } from './server-config.js'

/**
 * Answers the server's `roots/list` with `directories()` (absolute paths: the session's cwd, then
 * its additional directories) as `file://` URIs named by their last component, read afresh on every
 * request (no change notifications: the client declares `roots: {listChanged: false}`). `asked`
 * hears the directories of each answer.
 */
export function answerRoots(
  client: Client,
  directories: () => readonly string[],
  asked?: (roots: readonly string[]) => void,
): void {
  client.setRequestHandler(ListRootsRequestSchema, () => {
    const roots = [...new Set(directories())]
    asked?.(roots)
    return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) || dir })) }
  })
}

/**
 * For a stdio server started with directories in its args (server-filesystem's allowed
 * directories): a listener of its roots answers that calls `replaced` once with those directories
 * no root covers, which a server that takes roots in place of its args no longer serves.
 */
export function replacedDirectories(
  config: McpServerConfig,
  cwd: string,
  replaced: ((directories: readonly string[]) => void) | undefined,
): ((roots: readonly string[]) => void) | undefined {
  if (replaced === undefined || config.transport !== 'stdio') return undefined
  let said = false
  return (roots) => {
    if (said) return
    said = true
    const own = config.args.map((arg) => resolve(cwd, arg)).filter(isDirectory)
    const left = own.filter((dir) => !roots.some((root) => covers(root, dir)))
    if (left.length > 0) replaced(left)
  }
}

function covers(root: string, dir: string): boolean {
  const rel = relative(root, dir)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
