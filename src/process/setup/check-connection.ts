import { chatCompletionsEndpoint } from '../../agent/providers/openai/endpoint.js'

/** The result of the set-up's one small request. */
export type CheckResult = { readonly ok: true } | { readonly ok: false; readonly reason: string }

/**
 * Asks `model` at `baseUrl` for one token (a non-streaming chat completion with `max_tokens: 1`)
 * and says in words what failed: nothing answering, a refused key, an unknown model, a server
 * error. The key is sent only as the Authorization header and never appears in the reason.
 */
export async function checkConnection(
  baseUrl: string,
  model: string,
  key: string | undefined,
  timeoutMs = 30_000,
): Promise<CheckResult> {
  let url: string
  try {
    url = chatCompletionsEndpoint(baseUrl).url
  } catch (error) {
    return { ok: false, reason: `the base URL is not usable: ${(error as Error).message}` }
  }
  const hide = (text: string) => (key && key.length >= 4 ? text.split(key).join('***') : text)
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1 }),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    const why =
      cause === 'ECONNREFUSED'
        ? 'nothing answers there (connection refused): is the server running?'
        : cause === 'ENOTFOUND'
          ? 'the host name does not resolve'
          : cause === 'TimeoutError'
            ? `no answer within ${Math.round(timeoutMs / 1000)} s`
            : `the request failed (${cause})`
    return { ok: false, reason: `${url}: ${why}` }
  }
  if (response.ok) {
    await response.body?.cancel()
    return { ok: true }
  }
  const body = hide((await response.text().catch(() => '')).slice(0, 300))
  const message = serverMessage(body)
  const status = response.status
  const what =
    status === 401 || status === 403
      ? 'the key was refused'
      : status === 404
        ? `the model ${JSON.stringify(model)} or the URL is unknown to the server`
        : status === 429
          ? 'the server limits requests (rate limit or no credit left)'
          : status >= 500
            ? 'the server failed'
            : 'the server refused the request'
  return { ok: false, reason: `${url} answered ${status}: ${what}${message ? ` (${message})` : ''}` }
}

function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const error = parsed.error
    const text = typeof error === 'string' ? error : (error?.message ?? parsed.message)
    return typeof text === 'string' ? text : body
  } catch {
    return body.trim()
  }
}

/** The model names the server lists (`GET /models`), or undefined when it lists none. */
export async function listModels(baseUrl: string, key: string | undefined): Promise<string[] | undefined> {
  try {
    const url = `${baseUrl.replace(/\/+$/, '')}/models`
    const response = await fetch(url, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(10_000),
    })
    if (!response.ok) return undefined
    const body = (await response.json()) as { data?: { id?: unknown }[] }
    const names = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string')
    return names.length > 0 ? names : undefined
  } catch {
    return undefined
  }
}
