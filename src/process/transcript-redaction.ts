/**
 * A wire line with the secret values of any `mcpServers` it carries (env values, header values)
 * replaced by `***`: what the transcript records (`TranscriptRecorder.record` redacts every
 * line), and the header values of a `providers/set`. Other lines are returned as they are. The line is never re-serialized (a hostile message may nest too deep for that): each
 * secret's JSON text is replaced in place, and a line where that cannot be done is withheld.
 */
export function redactMcpSecrets(line: string): string {
  const providerSet = line.includes('"providers/set"')
  if (!line.includes('"mcpServers"') && !providerSet) return line
  let message: { method?: unknown; params?: { mcpServers?: unknown; headers?: unknown } }
  try {
    message = JSON.parse(line) as typeof message
  } catch {
    return line
  }
  const servers = message?.params?.mcpServers
  const values = Array.isArray(servers) ? secretValues(servers) : []
  // providers/set's headers (an Authorization header holds the provider's key): every value.
  const headers = message?.method === 'providers/set' ? message.params?.headers : undefined
  if (typeof headers === 'object' && headers !== null)
    for (const value of Object.values(headers))
      if (typeof value === 'string' && value !== '') values.push(value)
  if (values.length === 0) return line
  let out = line
  for (const value of values) {
    const encoded = JSON.stringify(value)
    if (!out.includes(encoded)) return WITHHELD_LINE
    out = out.split(encoded).join('"***"')
  }
  return out
}

/** What the transcript records instead of a line whose secrets could not be found to redact. */
const WITHHELD_LINE = JSON.stringify({
  withheld: 'a message carrying MCP server secrets in an unusual encoding',
})

function secretValues(servers: readonly unknown[]): string[] {
  const values: string[] = []
  for (const server of servers as Record<string, unknown>[]) {
    for (const key of ['env', 'headers']) {
      const pairs = server?.[key]
      if (!Array.isArray(pairs)) continue
      for (const pair of pairs as Record<string, unknown>[]) {
        if (typeof pair?.value === 'string' && pair.value !== '') values.push(pair.value)
      }
    }
  }
  return values
}
