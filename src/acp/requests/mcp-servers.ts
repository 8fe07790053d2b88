import type * as acp from '@agentclientprotocol/sdk'
import { noticeUpdate } from '../../agent/index.js'
import type { McpServerConfig, SecretPair } from '../../agent/mcp/server-config.js'
import type { Session, SessionUpdate } from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { elicitationModes } from '../client/elicitation.js'
import { ProtocolError } from '../errors.js'
import { supportsNotices } from '../views/notices.js'

/**
 * ACP `mcpServers` as the agent's server configs: stdio (no `type`) and `http`; `sse` is refused
 * with -32602 since `mcpCapabilities.sse` is not advertised. Server names must be unique.
 */
export function mcpServerConfigs(
  method: string,
  servers: readonly (acp.McpServer | { readonly type: string; readonly name: string })[] | undefined,
): McpServerConfig[] {
  const configs: McpServerConfig[] = []
  const names = new Set<string>()
  for (const [i, server] of (servers ?? []).entries()) {
    if (names.has(server.name)) {
      throw ProtocolError.invalidParams(
        `${method}: mcpServers[${i}]: the name ${JSON.stringify(server.name)} is used twice`,
      )
    }
    names.add(server.name)
    const type = 'type' in server ? server.type : 'stdio'
    if (type !== 'stdio' && type !== 'http') {
      throw ProtocolError.invalidParams(
        `${method}: mcpServers[${i}] (${server.name}): ${type} MCP servers are not supported (only stdio and http are advertised)`,
      )
    }
    if (type === 'http') {
      const http = server as acp.McpServerHttp
      configs.push({ transport: 'http', name: http.name, url: http.url, headers: http.headers.map(pairOf) })
    } else {
      const stdio = server as acp.McpServerStdio
      configs.push({
        transport: 'stdio',
        name: stdio.name,
        command: stdio.command,
        args: stdio.args,
        env: stdio.env.map(pairOf),
      })
    }
  }
  return configs
}

/** A variable or header as the agent keeps it: `_meta.dsh.secret: true` marks its value a secret. */
function pairOf(pair: acp.EnvVariable | acp.HttpHeader): SecretPair {
  const dsh = pair._meta?.dsh
  const marked = typeof dsh === 'object' && dsh !== null && 'secret' in dsh && dsh.secret === true
  return { name: pair.name, value: pair.value, ...(marked && { secret: true }) }
}

/**
 * Connects `configs` for `session`, after the servers the set-up offers every session in its cwd
 * (the configuration files'; one of the request's with the same name replaces it), reporting
 * failures to this connection's client as `session/update`s (sent after the method's response):
 * `notice`s when it advertised `session.notices`, else agent messages. What the set-up has to
 * tell the user (a configuration file it ignored) follows the same way.
 */
export async function connectMcpServers(
  call: CallContext,
  session: Session,
  configs: readonly McpServerConfig[],
): Promise<void> {
  const sessionId = session.id
  const offer = await call.setup.offeredServers(session.cwd)
  const named = new Set(configs.map((c) => c.name))
  const offered = mcpServerConfigs('configuration', offer.servers).filter((c) => !named.has(c.name))
  const notices = supportsNotices(call.client)
  const told = offer.notice !== undefined && notices ? noticeUpdate(offer.notice) : textUpdate(offer.message)
  if (told !== undefined) call.afterResponse(() => void call.notify({ sessionId, update: told }))
  return call.agent.mcp.connect(
    session,
    [...offered, ...configs],
    (update, seq) => call.notify({ sessionId, update, _meta: { dsh: { seq } } }),
    elicitationModes(call.client),
    notices,
  )
}

/**
 * A wire line with the secret values of any `mcpServers` it carries (env values, header values)
 * replaced by `***`: what the transcript records. Lines without `mcpServers` are returned as they
 * are. The line is never re-serialized (a hostile message may nest too deep for that): each
 * secret's JSON text is replaced in place, and a line where that cannot be done is withheld.
 */
export function redactMcpSecrets(line: string): string {
  if (!line.includes('"mcpServers"')) return line
  let message: { params?: { mcpServers?: unknown } }
  try {
    message = JSON.parse(line) as typeof message
  } catch {
    return line
  }
  const servers = message?.params?.mcpServers
  if (!Array.isArray(servers)) return line
  let out = line
  for (const value of secretValues(servers)) {
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

/** An agent message of `text`; undefined for none. */
function textUpdate(text: string | undefined): SessionUpdate | undefined {
  return text === undefined
    ? undefined
    : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }
}
