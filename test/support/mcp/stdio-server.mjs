#!/usr/bin/env node
// A stdio MCP server for the tests, on the official SDK's low-level Server (tools with plain JSON
// Schemas). Behaviour by argument:
//   --pidfile FILE   append this process's pid to FILE (the orphan checks count these)
//   --fail-start     exit 3 at once, before speaking MCP
//   --hang           never answer initialize
// Tools: echo {text}; env {name} (whether the variable is set, never its value); slow {ms}
// (records "started" in --pidfile's FILE.started, then answers after ms, or records "cancelled" in
// FILE.cancelled when cancelled);
// die {} (exits 4 in the middle of the call).
import { appendFileSync } from 'node:fs'
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
if (args.includes('--hang')) {
  process.stdin.resume()
} else {
  const server = new Server({ name: 'test-stdio', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'echo',
        description: 'Echoes text',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
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
    ],
  }))
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
