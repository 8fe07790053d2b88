import { ProtocolError } from '../errors.js'
import { isRecord } from './config-options-v2.js'

/**
 * v2's open enums in what a client sends, where v1's reader would take an unknown value for a
 * known one: an unknown value is kept out of the v1 call and refused with -32602, as v2 says an
 * agent MUST for a transport or a value type it does not support. (An unknown content block type
 * or replay cursor is refused by the v1 reader already; unknown client capability markers are
 * ignored.)
 */

const MCP_TRANSPORTS = '"stdio" and "http"'

/**
 * v2's MCP server configs as v1's: `type` is required; `stdio` loses it (v1's stdio has none) and
 * gets v1's required `args`/`env` when left out; `http` stays. Any other `type` (SSE, which v2
 * removed, an `_`-prefixed one of another agent, a future one) is -32602 naming the server.
 */
export function mcpServersV1(servers: unknown): unknown {
  if (servers === undefined || servers === null) return []
  if (!Array.isArray(servers)) return servers
  return servers.map((server: unknown, index) => {
    if (!isRecord(server)) return server
    const where = `mcpServers[${index}]${typeof server.name === 'string' ? ` (${JSON.stringify(server.name)})` : ''}`
    if (server.type === 'http') return server
    if (server.type === 'stdio') {
      const { type: _type, ...stdio } = server
      return { args: [], env: [], ...stdio }
    }
    if (server.type === undefined)
      throw ProtocolError.invalidParams(
        `${where}: ACP v2 requires "type" (this agent serves ${MCP_TRANSPORTS})`,
      )
    throw ProtocolError.invalidParams(
      `${where}: the MCP transport ${JSON.stringify(server.type)} is not supported (this agent serves ${MCP_TRANSPORTS})`,
    )
  })
}

/**
 * v2's `session/set_config_option` value as v1's: `type: "id"` is v1's untyped value id,
 * `boolean` stays; `type` is required, and any other is -32602 (v1 would read an unknown type with
 * a string value as a value id).
 */
export function configValueV1(params: Record<string, unknown>): Record<string, unknown> {
  const { type, ...rest } = params
  if (type === 'id') return rest
  if (type === 'boolean') return params
  if (type === undefined)
    throw ProtocolError.invalidParams('session/set_config_option: ACP v2 requires "type" ("id" or "boolean")')
  throw ProtocolError.invalidParams(
    `session/set_config_option: the value type ${JSON.stringify(type)} is not supported (this agent takes "id" and "boolean")`,
  )
}
