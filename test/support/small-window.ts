import type { SmallWindowModel } from '../../bench/small-window-model.js'
import type { FakeReply, RecordedRequest } from './fake-openai.js'

export { SmallWindowModel } from '../../bench/small-window-model.js'

/** A fake server script for {@link SmallWindowModel}: its replies as the fake chat-completions server sends them. */
export function smallWindowScript(model: SmallWindowModel): (request: RecordedRequest) => FakeReply {
  return (request) => {
    const reply = model.reply(request.body)
    if ('status' in reply) return { status: reply.status, body: reply.body }
    return { stream: reply.stream.map((data) => ({ data })) }
  }
}

/** A prompt of about `tokens` tokens of plain words, numbered so each is different. */
export function longPrompt(n: number, tokens = 400): string {
  return `Note ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(tokens / 9))}`.trim()
}
