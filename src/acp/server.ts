import type { Readable, Writable } from 'node:stream'
import type { Context } from 'cordis'
import { SessionAudience } from './attach/session-audience.js'
import type { CallContext } from './call-context.js'
import { type AgentCapabilities, agentCapabilities } from './capabilities.js'
import { AcpConnection, type ConnectionOptions } from './connection/connection.js'
import type { AcpMethod } from './method.js'
import type { AgentSetup } from './setup-port.js'

declare module 'cordis' {
  interface Context {
    acp: AcpServer
  }
}

import type { AgentInfo } from './initialize/agent-info.js'

export type { AgentInfo }

export interface AcpServerConfig {
  readonly agentInfo: AgentInfo
  /** Largest accepted line in bytes. Default: the wire layer's. */
  readonly maxLineBytes?: number
  /** `--protocol`: the one ACP version served (1 or 2); absent: both, chosen per connection. */
  readonly protocolVersion?: number
  /** Auth methods, stored keys and the MCP servers every session is offered. Default: none. */
  readonly setup?: AgentSetup
}

/**
 * Service `ctx.acp`: the table of ACP methods and the connections that serve them. Plugins add
 * methods with `register`, and what `initialize` advertises is built from the table alone, so a
 * method and its capability come and go together.
 */
export class AcpServer {
  private readonly methods = new Map<string, AcpMethod>()
  private sessionAudience: SessionAudience | undefined

  constructor(
    private readonly ctx: Context,
    readonly config: AcpServerConfig,
    /** The services every call gets, resolved once: a cordis service read costs tens of µs. */
    readonly services: Pick<CallContext, 'sessions' | 'agent'>,
  ) {}

  /** The connections attached to each session, shared by every connection this server serves. */
  get audience(): SessionAudience {
    this.sessionAudience ??= new SessionAudience(this.services.sessions, this.services.agent)
    return this.sessionAudience
  }

  /** Adds a method; the returned function removes it. A name can be registered once. */
  register(method: AcpMethod): () => void {
    if (this.methods.has(method.name)) throw new Error(`ACP method ${method.name} is already registered`)
    this.methods.set(method.name, method)
    return () => {
      if (this.methods.get(method.name) === method) this.methods.delete(method.name)
    }
  }

  method(name: string): AcpMethod | undefined {
    return this.methods.get(name)
  }

  /** The agent capabilities of the methods registered right now, and the agent's prompt support. */
  capabilities(): AgentCapabilities {
    return agentCapabilities((name) => this.methods.has(name), this.services.agent.promptCapabilities)
  }

  /** Serves ACP on a pair of streams (stdio, or in-memory in tests). */
  serve(input: Readable, output: Writable, options: ConnectionOptions = {}): AcpConnection {
    return new AcpConnection(this.ctx, this, {
      input,
      output,
      ...(this.config.maxLineBytes !== undefined && { maxLineBytes: this.config.maxLineBytes }),
      ...options,
    })
  }
}
