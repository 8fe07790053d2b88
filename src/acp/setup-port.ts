import type * as acp from '@agentclientprotocol/sdk'
import type { Notice } from '../agent/index.js'

/**
 * What the process that runs the server knows about its set-up (configuration files, stored
 * keys) and the ACP methods need: the auth methods to advertise, `authenticate`, `logout`, whether
 * a new session can start, and what each session is offered. A port: the process builds it from
 * the configuration (`process/config/agent-setup.ts`); the server has a no-op one when none is
 * given (tests, embedders).
 */
export interface AgentSetup {
  /** The `authMethods` of the `initialize` answer for a client with `capabilities`. */
  authMethods(capabilities: acp.ClientCapabilities | undefined): acp.AuthMethod[]
  /**
   * Runs the `agent` method `methodId`: resolves when the configured provider can be used now;
   * rejects with an Error saying what to do otherwise (or that the method is unknown).
   */
  authenticate(methodId: string): Promise<void>
  /** Forgets the stored keys; resolves with what was removed, in words. */
  logout(): Promise<string>
  /** Why a new session cannot start now (its model needs a key nobody gave), else undefined. */
  missingAuth(): string | undefined
  /** The MCP servers offered to a session in `cwd`, before the client's (which win by name). */
  offeredServers(cwd: string): Promise<SetupOffer>
}

/** What a session in some directory is offered, and what to tell its user. */
export interface SetupOffer {
  readonly servers: readonly acp.McpServer[]
  /** Text for the user (configuration problems), sent as an agent message after the answer. */
  readonly message?: string
  /** The same as a notice, for a client that shows them (`session.notices`). */
  readonly notice?: Notice
}

/** No configuration: no auth methods beyond an `agent` one that always succeeds, nothing offered. */
export const NO_SETUP: AgentSetup = {
  authMethods: () => [],
  authenticate: async () => {},
  logout: async () => 'nothing was stored',
  missingAuth: () => undefined,
  offeredServers: async () => ({ servers: [] }),
}
