import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { AcpMethodName } from './schema/acp-methods.gen.js'

/**
 * The `agentCapabilities` of an `initialize` response (the SDK's type, with the parts this agent
 * always answers made present).
 */
export type AgentCapabilities = acp.AgentCapabilities & {
  promptCapabilities: acp.PromptCapabilities
  mcpCapabilities: acp.McpCapabilities
  sessionCapabilities: SessionCapabilities
}

/** The SDK's session capabilities and the workspace-trust RFD's (a draft no schema has yet). */
type SessionCapabilities = acp.SessionCapabilities & {
  workspaceTrust?: Record<string, never>
  options?: Record<string, never>
}

/** The workspace-trust RFD's method (acp/trust/): served, it advertises `sessionCapabilities.workspaceTrust`. */
export const TRUST_APPLY = 'trust/apply'

/** Schema 1.31's `session/options` (no SDK schema has it yet): served, it advertises `sessionCapabilities.options`. */
export const SESSION_OPTIONS = 'session/options'

/** What serving one method adds to `agentCapabilities`. */
type Advertised =
  | {
      readonly method: AcpMethodName | typeof TRUST_APPLY | typeof SESSION_OPTIONS
      readonly session: keyof SessionCapabilities
    }
  | { readonly method: AcpMethodName; readonly loadSession: true }
  | { readonly method: AcpMethodName; readonly auth: 'logout' | 'status' }
  | { readonly method: AcpMethodName; readonly providers: true }

/**
 * What each ACP method advertises while it is served; a method absent here advertises nothing.
 * The one table behind both `AcpServer.capabilities()` and the `initialize` answered before the
 * server is built; its order is the order of the keys in the JSON.
 */
const ADVERTISED: readonly Advertised[] = [
  { method: 'session/new', session: 'additionalDirectories' },
  { method: 'session/resume', session: 'resume' },
  { method: 'session/list', session: 'list' },
  { method: 'session/close', session: 'close' },
  { method: 'session/delete', session: 'delete' },
  { method: 'session/fork', session: 'fork' },
  { method: 'session/archive', session: 'archive' },
  { method: 'session/status', session: 'status' },
  { method: 'session/set_title', session: 'title' },
  { method: TRUST_APPLY, session: 'workspaceTrust' },
  { method: SESSION_OPTIONS, session: 'options' },
  { method: 'session/load', loadSession: true },
  { method: 'logout', auth: 'logout' },
  { method: 'auth/status', auth: 'status' },
  { method: 'providers/list', providers: true },
]

/** The ACP methods the server plugin (`acpPlugin`) registers. */
export const SERVER_METHODS = [
  'initialize',
  'authenticate',
  'logout',
  'session/new',
  'session/load',
  'session/resume',
  'session/list',
  'session/close',
  'session/delete',
  'session/prompt',
  'session/cancel',
  'session/set_config_option',
  'session/set_mode',
  'session/set_title',
  'session/archive',
  'session/unarchive',
  'session/status',
] as const satisfies readonly AcpMethodName[]

/** The ACP methods of acp/providers/ (registered with the server plugin): `providers.{}` and `auth.status`. */
export const PROVIDER_METHODS = [
  'providers/list',
  'providers/set',
  'providers/disable',
  'auth/status',
] as const satisfies readonly AcpMethodName[]

/** The ACP methods the fork plugin (`forkPlugin`) registers, while it runs. */
export const FORK_METHODS = ['session/fork'] as const satisfies readonly AcpMethodName[]

/**
 * The `agentCapabilities` of a server that serves the methods `serves` accepts, for an agent with
 * `promptCapabilities`. What we do not have is absent, never `false` (the schema's default for
 * every capability flag is false; a client that tests for a key's presence must not see one).
 */
export function agentCapabilities(
  serves: (method: string) => boolean,
  promptCapabilities: acp.PromptCapabilities,
): AgentCapabilities {
  const sessionCapabilities: SessionCapabilities = {}
  let loadSession = false
  const auth: acp.AgentAuthCapabilities = {}
  let providers = false
  for (const entry of ADVERTISED) {
    if (!serves(entry.method)) continue
    if ('session' in entry) sessionCapabilities[entry.session] = {}
    else if ('auth' in entry) auth[entry.auth] = {}
    else if ('providers' in entry) providers = true
    else loadSession = true
  }
  // Served with session/new: the client's system prompt, in both modes (requests/system-prompt.ts).
  if (serves('session/new')) sessionCapabilities.systemPrompt = { mode: { override: {} } }
  return {
    promptCapabilities: withoutFalse(promptCapabilities),
    mcpCapabilities: { http: true },
    sessionCapabilities,
    ...(loadSession && { loadSession: true }),
    ...(Object.keys(auth).length > 0 && { auth }),
    ...(providers && { providers: {} }),
  }
}

/** `capabilities` without its `false` flags. */
function withoutFalse<T extends object>(capabilities: T): T {
  return Object.fromEntries(Object.entries(capabilities).filter(([, value]) => value !== false)) as T
}

/** What decides the capabilities a server advertises when it starts. */
export interface StartupFeatures {
  /** The fork plugin runs. */
  readonly fork: boolean
  /** The agent's (`promptCapabilitiesOf` its provider). */
  readonly promptCapabilities: acp.PromptCapabilities
}

/**
 * The `agentCapabilities` of a freshly built server: the server plugin's methods (with
 * `trust/apply`), and the fork plugin's when it runs.
 */
export function capabilitiesAtStart(features: StartupFeatures): AgentCapabilities {
  const served = new Set<string>([
    ...SERVER_METHODS,
    TRUST_APPLY,
    SESSION_OPTIONS,
    ...PROVIDER_METHODS,
    ...(features.fork ? FORK_METHODS : []),
  ])
  return agentCapabilities((method) => served.has(method), features.promptCapabilities)
}
