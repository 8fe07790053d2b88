import { PERMISSION_ALWAYS_EVENT } from './config/permissions.js'
import { MCP_CONNECTED_EVENT, MCP_FAILED_EVENT } from './mcp/session-mcp.js'

/** The namespaced log events the agent writes (each described in `schemas/events.schema.json`). */
export const AGENT_EVENT_TYPES: readonly string[] = [
  PERMISSION_ALWAYS_EVENT,
  MCP_CONNECTED_EVENT,
  MCP_FAILED_EVENT,
]
