/** Who the agent is, as `initialize` answers it (`agentInfo` in v1, `info` in v2). */
export interface AgentInfo {
  readonly name: string
  readonly version: string
  readonly title?: string
}
