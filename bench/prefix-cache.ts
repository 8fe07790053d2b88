/**
 * A stand-in for a provider's prompt cache that caches by exact prefix (shared by the subagent
 * bench and the tests): a request's prompt is its `tools` then each message, serialized in order;
 * the cached part is the longest byte prefix it shares with any earlier request's prompt. Tokens
 * are counted as 4 bytes each.
 */
export class PrefixCache {
  private readonly prompts: string[] = []

  /** The prompt bytes of a chat-completions request body, as this cache sees them. */
  static promptOf(body: { readonly [key: string]: unknown } | undefined): string {
    const messages = Array.isArray(body?.messages) ? body.messages : []
    return [JSON.stringify(body?.tools ?? null), ...messages.map((m) => JSON.stringify(m))].join('\n')
  }

  /** Records the request; answers its prompt and cached token counts. */
  see(body: { readonly [key: string]: unknown } | undefined): { promptTokens: number; cachedTokens: number } {
    const prompt = PrefixCache.promptOf(body)
    let best = 0
    for (const earlier of this.prompts) best = Math.max(best, commonPrefix(prompt, earlier))
    this.prompts.push(prompt)
    return { promptTokens: Math.ceil(prompt.length / 4), cachedTokens: Math.floor(best / 4) }
  }
}

/** The length of the longest common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
