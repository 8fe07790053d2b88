import type * as acp from '@agentclientprotocol/sdk'
import type { Notice } from '../agent/index.js'
import type { ProviderSettings } from './providers/provider-wire.js'
import { TrustRefusal, type WorkspaceTrust } from './trust/trust-wire.js'

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
  /**
   * The MCP servers offered to session `sessionId` in `cwd`, before the client's (which win by
   * name): the user's, and the project's only when the workspace is trusted (see `trust`).
   */
  offeredServers(cwd: string, sessionId?: string): Promise<SetupOffer>
  /** Workspace trust: which project files a session's folder may use. */
  readonly trust: WorkspaceTrust
  /** `providers/*` and `auth/status`: the configured providers (none when absent). */
  readonly providers?: ProviderSettings
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
  trust: {
    report: () => undefined,
    apply: () => {
      throw new TrustRefusal('this agent reads no project file: there is nothing to trust')
    },
  },
}
