/**
 * What to say at start when `--model openai` runs without `DSH_API_KEY` (unset or empty):
 * `undefined` when a key is set or the model is not `openai`. A server on this machine
 * (localhost, 127.0.0.0/8, ::1) commonly needs no key, so that is said at `info`; any other server
 * gets a `warn`. Never a refusal: some remote servers need no key either. The URL is shown
 * without credentials or query.
 */
export function missingKeyNotice(
  modelSpec: string,
  baseUrl: string | undefined,
  apiKey: string | undefined,
): { readonly level: 'info' | 'warn'; readonly text: string } | undefined {
  const spec = modelSpec.trim()
  if (spec !== 'openai' && !spec.startsWith('openai:')) return undefined
  if (apiKey !== undefined && apiKey !== '') return undefined
  const state = apiKey === undefined ? 'DSH_API_KEY is not set' : 'DSH_API_KEY is empty'
  const url = parsed(baseUrl)
  const where = url ? `${url.origin}${url.pathname}` : 'the model server'
  const host = url?.hostname ?? ''
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127(\.\d+){3}$/.test(host)
  ) {
    return { level: 'info', text: `${state}: requests to ${where} are sent without an API key` }
  }
  return {
    level: 'warn',
    text: `${state}: requests to ${where} are sent without an API key, which most hosted servers refuse (set DSH_API_KEY in the environment that starts dsh-acp)`,
  }
}

function parsed(baseUrl: string | undefined): URL | undefined {
  try {
    return baseUrl === undefined ? undefined : new URL(baseUrl)
  } catch {
    return undefined
  }
}
