#!/usr/bin/env node
// A stdio MCP server that asks its client for many completions, on the official SDK's low-level
// Server, for the sampling bounds tests. One read-only tool:
//   sample_many {count, parallel?, marker?}
//     `count` sampling/createMessage requests, one after the other or all at once; once all but
//     one have failed, writes the file `marker` (if given); answers
//     "answered A, refused R: <each distinct refusal message, | between>"
import { writeFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'

const server = new Server({ name: 'sampling-server', version: '1.0.0' }, { capabilities: { tools: {} } })

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'sample_many',
      description: 'Ask the client model many times',
      inputSchema: {
        type: 'object',
        properties: { count: { type: 'integer' }, parallel: { type: 'boolean' }, marker: { type: 'string' } },
        required: ['count'],
      },
      annotations: { readOnlyHint: true },
    },
  ],
}))

async function sampleMany(extra, { count, parallel = false, marker }) {
  const ask = (i) =>
    extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: `Request ${i}` } }],
          maxTokens: 10,
        },
      },
      CreateMessageResultSchema,
    )
  let answered = 0
  const refusals = []
  const settle = (promise) =>
    promise.then(
      () => {
        answered++
      },
      (error) => {
        refusals.push(error.message)
        if (marker !== undefined && refusals.length === count - 1) writeFileSync(marker, '')
      },
    )
  if (parallel) await Promise.all(Array.from({ length: count }, (_, i) => settle(ask(i + 1))))
  else for (let i = 1; i <= count; i++) await settle(ask(i))
  return `answered ${answered}, refused ${refusals.length}: ${[...new Set(refusals)].join(' | ')}`
}

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: input = {} } = request.params
  if (name !== 'sample_many')
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true }
  return { content: [{ type: 'text', text: await sampleMany(extra, input) }] }
})

await server.connect(new StdioServerTransport())
