import { completionStream, type FakeReply } from './fake-openai.js'
import { messagesOf } from './openai-wire.js'

// The fake model server's replies the end-to-end tests script, and what they read back of its requests.

/** A model reply that calls one tool: call `id` of `name` with `args`. */
export const call = (id: string, name: string, args: unknown): FakeReply => ({
  stream: completionStream({ toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
})

/** A model reply that calls several tools in one step, each `[id, name, args]`. */
export const calls = (list: [string, string, unknown][]): FakeReply => ({
  stream: completionStream({
    toolCalls: list.map(([id, name, args]) => ({ id, name, arguments: JSON.stringify(args) })),
  }),
})

/** A model reply of text only. */
export const say = (text: string): FakeReply => ({ stream: completionStream({ text }) })

/** The tool messages of a model request, by call id. */
export function toolResults(request: Parameters<typeof messagesOf>[0]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of messagesOf(request) as { role: string; tool_call_id?: string; content?: string }[]) {
    if (m.role === 'tool' && m.tool_call_id) out[m.tool_call_id] = String(m.content)
  }
  return out
}
