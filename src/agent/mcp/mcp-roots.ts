import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/**
 * What dsh-acp's MCP client tells servers it supports: `roots` (the session's directories, read
 * afresh on every `roots/list`; no change notifications, so `listChanged: false`).
 */
export const MCP_CLIENT_CAPABILITIES = { roots: { listChanged: false } } as const

/**
 * Answers the server's `roots/list` with `directories()` (absolute paths: the session's cwd, then
 * its additional directories) as `file://` URIs named by their last component. The client must
 * have been constructed with {@link MCP_CLIENT_CAPABILITIES}.
 */
export function answerRoots(client: Client, directories: () => readonly string[]): void {
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [...new Set(directories())].map((dir) => ({
      uri: pathToFileURL(dir).href,
      name: basename(dir) || dir,
    })),
  }))
}
