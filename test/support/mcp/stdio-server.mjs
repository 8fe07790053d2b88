#!/usr/bin/env node
// A stdio MCP server for the tests, on the official SDK's low-level Server (tools with plain JSON
// Schemas). Behaviour by argument:
//   --pidfile FILE   append this process's pid to FILE (the orphan checks count these)
//   --fail-start     exit 3 at once, before speaking MCP
//   --hang           never answer initialize
//   --wait-for FILE  answer nothing (initialize included) until FILE exists
//   --client-info FILE  write the client's `clientInfo` (JSON) to FILE once initialized
//   --spawn-child FILE  start `sleep 1000` (in this server's process group) and append its pid to FILE
//   --endless-pages  tools/list always has a next page (one more tool `t<n>` per page)
//   --many-tools N   tools/list lists N tools `t<n>` in one page
//   --uri-tool       echo's schema gives `text` the format "uri" (one ajv does not know by default)
// Tools: echo {text}; env {name} (whether the variable is set, never its value); slow {ms}
// (records "started" in --pidfile's FILE.started, then answers after ms, or records "cancelled" in
// FILE.cancelled when cancelled);
// die {} (exits 4 in the middle of the call).
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const args = process.argv.slice(2)
const option = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const pidfile = option('--pidfile')
if (pidfile) appendFileSync(pidfile, `${process.pid}\n`)
if (args.includes('--fail-start')) {
  process.stderr.write('stdio-server: told to fail\n')
  process.exit(3)
}
const childFile = option('--spawn-child')
if (childFile) {
  const child = spawn('sleep', ['1000'], { stdio: 'ignore' })
  appendFileSync(childFile, `${child.pid}\n`)
}
const waitFor = option('--wait-for')
if (waitFor) {
  while (!existsSync(waitFor)) await new Promise((resolve) => setTimeout(resolve, 20))
}
const numbered = (from, count) =>
  Array.from({ length: count }, (_, i) => ({
    name: `t${from + i}`,
    description: `Tool ${from + i}`,
    inputSchema: { type: 'object' },
  }))
if (args.includes('--hang')) {
  process.stdin.resume()
} else {
  const server = new Server({ name: 'test-stdio', version: '1.0.0' }, { capabilities: { tools: {} } })
  const infoFile = option('--client-info')
  if (infoFile)
    server.oninitialized = () => writeFileSync(infoFile, JSON.stringify(server.getClientVersion()))
  const many = option('--many-tools')
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (args.includes('--endless-pages')) {
      const page = Number(request.params?.cursor ?? '0')
      return { tools: numbered(page, 1), nextCursor: String(page + 1) }
    }
    if (many !== undefined) return { tools: numbered(0, Number(many)) }
    return { tools: TOOLS }
  })
  const TOOLS = [
    {
      name: 'echo',
      description: 'Echoes text',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', ...(args.includes('--uri-tool') && { format: 'uri' }) } },
        required: ['text'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'env',
      description: 'Says whether an environment variable is set',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'slow',
      description: 'Answers after ms milliseconds',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
      annotations: { readOnlyHint: true },
    },
    { name: 'die', description: 'Exits in the middle of the call', inputSchema: { type: 'object' } },
  ]
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const input = request.params.arguments ?? {}
    switch (request.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${input.text}` }] }
      case 'env':
        return { content: [{ type: 'text', text: process.env[input.name] ? 'set' : 'unset' }] }
      case 'slow':
        if (pidfile) appendFileSync(`${pidfile}.started`, 'started\n')
        return new Promise((resolve) => {
          const timer = setTimeout(
            () => resolve({ content: [{ type: 'text', text: 'slow done' }] }),
            input.ms,
          )
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            if (pidfile) appendFileSync(`${pidfile}.cancelled`, 'cancelled\n')
            resolve({ content: [{ type: 'text', text: 'cancelled' }], isError: true })
          })
        })
      case 'die':
        setTimeout(() => process.exit(4), 20)
        return new Promise(() => {})
      default:
        return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true }
    }
  })
  await server.connect(new StdioServerTransport())
}
