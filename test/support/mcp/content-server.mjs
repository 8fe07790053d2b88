#!/usr/bin/env node
// A stdio MCP server for the content, progress, roots and schema tests (official SDK, low-level
// Server). Tools:
//   picture {}      text, an image, a resource link and an embedded resource
//   progress {n}    n progress notifications (when the call has a progressToken), then "done" once
//                   the file given by --release FILE exists (at once without --release)
//   roots {}        the client's roots/list answer, as text (one URI per line)
//   secret {}       echoes MCP_TOKEN's value (a server that leaks what it was given)
//   pattern {s}     s must match ^(a|a)*$ (backtracking engines take 2^n steps on "a"*n + "b")
//   withid {}       a schema with an $id (the same on every connection)
// With --bad, also:
//   lookahead {s}   a pattern RE2 cannot run (left out by the client, naming why)
//   notobject       an inputSchema of type "string" (not a valid MCP tool: left out)
import { existsSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

const object = (properties = {}) => ({ type: 'object', properties })
const tools = [
  {
    name: 'picture',
    description: 'Shows a picture',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'progress',
    description: 'Reports progress',
    inputSchema: object({ n: { type: 'integer' } }),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'roots',
    description: 'Lists the roots',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'secret',
    description: 'Leaks its token',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'pattern',
    description: 'Takes a string of a',
    inputSchema: object({ s: { type: 'string', pattern: '^(a|a)*$' } }),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'withid',
    description: 'Has a schema id',
    inputSchema: { $id: 'https://example.com/withid.schema.json', ...object() },
    annotations: { readOnlyHint: true },
  },
]
const bad = [
  {
    name: 'lookahead',
    description: 'Uses a lookahead',
    inputSchema: object({ s: { type: 'string', pattern: '^(?!x)' } }),
  },
  { name: 'notobject', description: 'Not an object', inputSchema: { type: 'string' } },
]

const server = new Server({ name: 'test-content', version: '1.0.0' }, { capabilities: { tools: {} } })
const listed = process.argv.includes('--bad') ? [...tools, ...bad] : tools
const releaseAt = process.argv.indexOf('--release')
const release = releaseAt === -1 ? undefined : process.argv[releaseAt + 1]
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }))
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const input = request.params.arguments ?? {}
  switch (request.params.name) {
    case 'picture':
      return {
        content: [
          { type: 'text', text: 'a picture:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource_link',
            uri: 'file:///tmp/picture.png',
            name: 'picture.png',
            mimeType: 'image/png',
          },
          {
            type: 'resource',
            resource: { uri: 'file:///tmp/notes.txt', mimeType: 'text/plain', text: 'notes' },
          },
        ],
      }
    case 'progress': {
      const token = request.params._meta?.progressToken
      const n = Number(input.n ?? 3)
      if (token !== undefined) {
        for (let i = 1; i <= n; i++) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
          })
        }
        // A slow tool: the answer waits for the test to have seen the progress (the SDK client
        // drops a progress notification read in the same chunk as the answer).
        while (release !== undefined && !existsSync(release)) {
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      }
      return { content: [{ type: 'text', text: token === undefined ? 'no progress token' : 'done' }] }
    }
    case 'roots': {
      const { roots } = await server.listRoots()
      return { content: [{ type: 'text', text: roots.map((root) => root.uri).join('\n') }] }
    }
    case 'secret':
      return { content: [{ type: 'text', text: `the token is ${process.env.MCP_TOKEN}` }] }
    default:
      return { content: [{ type: 'text', text: `${request.params.name} ran` }] }
  }
})
await server.connect(new StdioServerTransport())
