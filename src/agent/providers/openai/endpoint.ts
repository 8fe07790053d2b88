/**
 * The chat-completions endpoint for `baseUrl` (its path plus `/chat/completions`, query kept), and
 * the same endpoint as it may be shown: no credentials, no query. Throws on a URL that is not
 * http(s) or that carries credentials (fetch refuses them, and they would leak into messages).
 */
export function chatCompletionsEndpoint(baseUrl: string): { readonly url: string; readonly display: string } {
  let parsed: URL
  try {
    parsed = new URL(baseUrl)
  } catch {
    throw new TypeError('openai provider: baseUrl is not a valid URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`openai provider: baseUrl must be http or https, not ${parsed.protocol}`)
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError('openai provider: baseUrl must not contain credentials; pass the key as the API key')
  }
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/chat/completions`
  parsed.hash = ''
  return { url: parsed.toString(), display: `${parsed.origin}${parsed.pathname}` }
}
