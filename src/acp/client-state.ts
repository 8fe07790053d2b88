import type * as acp from '@agentclientprotocol/sdk'

/** What the client said about itself in `initialize`. */
export interface ClientState {
  readonly protocolVersion: number
  readonly capabilities: acp.ClientCapabilities
  readonly info?: acp.Implementation
}
