#!/usr/bin/env node
// A stdio MCP server that asks its client, on the official SDK's low-level Server, for the
// question and sampling tests. Deterministic: every answer is made only of what the client said.
// Tools:
//   ask_name {}       elicitation/create (form): a required name and a color (legacy enumNames);
//                     answers "answer: <the ElicitResult as JSON>"
//   open_link {url}   elicitation/create (url mode, elicitationId "link-1"); once accepted, says
//                     notifications/elicitation/complete for it; answers the same way
//   summarize {text}  sampling/createMessage (system prompt, maxTokens 50, temperature 0);
//                     answers "summary: <the model's text>" or "sampling failed: <error message>"
//                     (read-only: readOnlyHint, so read-only mode still offers it)
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'

const server = new Server({ name: 'asking-server', version: '1.0.0' }, { capabilities: { tools: {} } })

const noInput = { type: 'object', properties: {}, additionalProperties: false }

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'ask_name', description: 'Ask the user for their name', inputSchema: noInput },
    {
      name: 'open_link',
      description: 'Send the user to a page',
      inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    },
    {
      name: 'summarize',
      description: 'Summarize a text with the client model',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
    },
  ],
}))

const text = (t) => ({ content: [{ type: 'text', text: t }] })

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: input = {} } = request.params
  if (name === 'ask_name') {
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Name', minLength: 1 },
              color: {
                type: 'string',
                title: 'Favourite color',
                enum: ['r', 'g'],
                enumNames: ['Red', 'Green'],
              },
            },
            required: ['name'],
          },
        },
      },
      ElicitResultSchema,
    )
    return text(`answer: ${JSON.stringify(result)}`)
  }
  if (name === 'open_link') {
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Sign in, please.', elicitationId: 'link-1', url: String(input.url) },
      },
      ElicitResultSchema,
    )
    if (result.action === 'accept') {
      await extra.sendNotification({
        method: 'notifications/elicitation/complete',
        params: { elicitationId: 'link-1' },
      })
    }
    return text(`answer: ${JSON.stringify(result)}`)
  }
  if (name === 'summarize') {
    try {
      const result = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${String(input.text)}` } }],
            systemPrompt: 'You write one-line summaries.',
            maxTokens: 50,
            temperature: 0,
          },
        },
        CreateMessageResultSchema,
      )
      return text(`summary: ${result.content.type === 'text' ? result.content.text : result.content.type}`)
    } catch (error) {
      return text(`sampling failed: ${error.message}`)
    }
  }
  return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true }
})

await server.connect(new StdioServerTransport())
