import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/**
 * Answers the server's `roots/list` with `directories()` (absolute paths: the session's cwd, then
 * its additional directories) as `file://` URIs named by their last component, read afresh on every
 * request (no change notifications: the client declares `roots: {listChanged: false}`).
 */
export function answerRoots(client: Client, directories: () => readonly string[]): void {
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [...new Set(directories())].map((dir) => ({
      uri: pathToFileURL(dir).href,
      name: basename(dir) || dir,
    })),
  }))
}
