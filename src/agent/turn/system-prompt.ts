import type { ModelRequest } from '../types.js'

/**
 * The system prompt a chat model gets before the conversation: who it is, where it works, and
 * the rules its tools enforce (paths inside the working directory; writes need the user's
 * permission). Derived from the request only, so a fork child gets the same one as its parent.
 */
export function systemPrompt(request: Pick<ModelRequest, 'cwd' | 'tools'>): string {
  const lines = [
    'You are dsh-acp, a coding agent working for a user inside their code editor.',
    `The project's working directory is ${request.cwd}. File paths you give to tools must lie inside it: absolute, or relative to it.`,
  ]
  if (request.tools.length > 0) {
    lines.push(
      `Your tools: ${request.tools.map((tool) => tool.name).join(', ')}. Writing a file asks the user for permission first; if they refuse, say so and go on without it.`,
    )
  }
  lines.push('Answer concisely. Say plainly when you are unsure or when a tool failed.')
  return lines.join('\n')
}
