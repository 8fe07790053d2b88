/** How the agent runs a session's MCP servers (`AgentConfig.mcp`). */
export interface McpOptions {
  /** Ms a server is allowed to connect, list its tools and answer each call. Default 60000. */
  readonly timeoutMs?: number
  /** Sampling requests one server may make per turn. Default 10. */
  readonly samplingPerTurn?: number
}
