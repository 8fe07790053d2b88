import type * as acp from '@agentclientprotocol/sdk'
import type { McpServerConfig, SecretPair } from '../../agent/mcp/server-config.js'
import { ProtocolError } from '../errors.js'

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
      configs.push({
        transport: 'http',
        name: http.name,
        url: http.url,
        headers: http.headers.map(pairOf),
        ...rootsOf(http),
      })
    } else {
      const stdio = server as acp.McpServerStdio
      configs.push({
        transport: 'stdio',
        name: stdio.name,
        command: stdio.command,
        args: stdio.args,
        env: stdio.env.map(pairOf),
        ...rootsOf(stdio),
      })
    }
  }
  return configs
}

/** `_meta.dsh.roots: false` on a server: it is not offered MCP roots (see server-config.ts). */
function rootsOf(server: { readonly _meta?: { readonly [key: string]: unknown } | null }): { roots?: false } {
  const dsh = server._meta?.dsh
  const off = typeof dsh === 'object' && dsh !== null && 'roots' in dsh && dsh.roots === false
  return off ? { roots: false } : {}
}

/** A variable or header as the agent keeps it: `_meta.dsh.secret: true` marks its value a secret. */
function pairOf(pair: acp.EnvVariable | acp.HttpHeader): SecretPair {
  const dsh = pair._meta?.dsh
  const marked = typeof dsh === 'object' && dsh !== null && 'secret' in dsh && dsh.secret === true
  return { name: pair.name, value: pair.value, ...(marked && { secret: true }) }
}
