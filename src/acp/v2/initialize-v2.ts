import type * as acp from '@agentclientprotocol/sdk'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'
import type { AgentCapabilities } from '../capabilities.js'
import { goalInitializeMeta } from '../goals/advertise.js'
import type { AgentInfo } from '../initialize/agent-info.js'
import { rewindInitializeMeta } from '../rewind/advertise.js'
import { v2AuthCapabilities } from './auth-v2.js'

/** ACP v2's protocol version number. */
export const PROTOCOL_V2 = 2

/**
 * The v2 `initialize` answer: `capabilities` (support markers are objects, never booleans) and
 * the required `info`. `capabilities.session` is advertised only when every baseline session
 * method v2 requires with it (new, list, resume, close, prompt, cancel, update) is served.
 * The unstable schema's markers (fork, archive, status, title, systemPrompt) where v1 advertises
 * them; the `session.steering` draft's marker (a prompt while a turn runs steers it, see
 * `steerV2`); `_meta` says how `_session/rewind` is served and offers the goal extension (as on
 * v1: its `session_info_update._meta.goal` is a key of v2's `_meta` patch). `authMethods` (v2's
 * words, see auth-v2.ts) when there are any: `auth/login` and `auth/logout` are then served.
 */
export function initializeV2Result(
  capabilities: AgentCapabilities,
  agentInfo: AgentInfo,
  authMethods: readonly v2.AuthMethod[] = [],
): v2.InitializeResponse {
  const served = capabilities.sessionCapabilities
  const baseline = served.list !== undefined && served.resume !== undefined && served.close !== undefined
  return {
    protocolVersion: PROTOCOL_V2,
    info: { ...agentInfo },
    capabilities: baseline
      ? {
          session: {
            prompt: promptMarkers(capabilities.promptCapabilities),
            mcp: { stdio: {}, http: {} },
            ...(served.delete !== undefined && { delete: {} }),
            ...(served.additionalDirectories !== undefined && { additionalDirectories: {} }),
            ...unstableMarkers(served),
          },
        }
      : {},
    ...(authMethods.length > 0 && { authMethods: [...authMethods] }),
    _meta: { ...rewindInitializeMeta(undefined), ...goalInitializeMeta() },
  }
}

/**
 * The v2 unstable schema's session markers for what v1 advertises the same way: fork, archive,
 * status, title (set_title) and the client system prompt (its modes as they are); and the
 * `session.steering` and Remote drafts' (`attach`), in no schema yet.
 */
function unstableMarkers(served: AgentCapabilities['sessionCapabilities']): Record<string, unknown> {
  return {
    ...(served.systemPrompt != null && { systemPrompt: served.systemPrompt }),
    ...(served.fork != null && { fork: {} }),
    ...(served.archive != null && { archive: {} }),
    ...(served.status != null && { status: {} }),
    ...(served.title != null && { title: {} }),
    // The `session.steering` draft: a prompt while a turn runs steers it (v2/steer-v2.ts).
    steering: {},
    // The Remote draft's `session/attach`, `session/ready` and `session/detach` (v2/attach/).
    attach: {},
  }
}

/** v1's boolean prompt capabilities as v2's object markers (absent when not supported). */
function promptMarkers(prompt: acp.PromptCapabilities): v2.PromptCapabilities {
  return {
    ...(prompt.image === true && { image: {} }),
    ...(prompt.audio === true && { audio: {} }),
    ...(prompt.embeddedContext === true && { embeddedContext: {} }),
  }
}

/**
 * What a v2 client's `initialize` tells the connection, as v1's client state: no `fs`, no
 * `terminal` (v2 has none); its `elicitation` modes as they are (the same objects in both); its
 * `auth.terminal` marker as v1's boolean.
 */
export function v2ClientCapabilities(capabilities: unknown): acp.ClientCapabilities {
  const auth = v2AuthCapabilities(capabilities)
  const elicitation = (capabilities as { elicitation?: unknown } | null | undefined)?.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return auth
  return { ...auth, elicitation: elicitation as acp.ElicitationCapabilities }
}
