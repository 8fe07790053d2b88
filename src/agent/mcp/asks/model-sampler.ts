import { abortable } from '../../../lib/abort.js'
import type { Session, SessionStore } from '../../../session/index.js'
import {
  type LivePermissions,
  PERMISSION_ALWAYS_EVENT,
  type PermissionAlwaysData,
} from '../../config/permissions.js'
import type { EffectiveConfig } from '../../config/session-config.js'
import type { ModelProvider } from '../../types.js'
import type { McpSampler } from './mcp-asks.js'

export interface ModelSamplerDeps {
  readonly provider: ModelProvider
  readonly sessions: () => SessionStore
  readonly config: (session: Session) => EffectiveConfig
  readonly permissionsOf: (sessionId: string) => LivePermissions
}

/**
 * Sampling for MCP servers by the session's model (its `model` and `thought_level` options), with
 * no tools and nothing of the session's history: only the server's messages, its system prompt (or
 * none) and limits. The text the model streams is the answer; a model that stops for `max_tokens`
 * says `maxTokens`.
 */
export function modelSampler(deps: ModelSamplerDeps): McpSampler {
  return {
    permissions: (sessionId) => deps.permissionsOf(sessionId),
    recordAlways(sessionId, tool, scope, allow) {
      const data: PermissionAlwaysData = { tool, scope, allow }
      deps.sessions().require(sessionId).append({ type: PERMISSION_ALWAYS_EVENT, data })
    },
    async complete(sessionId, messages, limits, signal) {
      const session = deps.sessions().require(sessionId)
      const config = deps.config(session)
      const request = {
        sessionId,
        cwd: session.cwd,
        messages,
        tools: [],
        model: config.model,
        ...(config.thoughtLevel !== undefined && { thoughtLevel: config.thoughtLevel }),
        sampling: limits,
      }
      let text = ''
      let stopReason: 'endTurn' | 'maxTokens' = 'endTurn'
      for await (const chunk of abortable(deps.provider.stream(request, signal), signal)) {
        if (chunk.type === 'text') text += chunk.text
        else if (chunk.type === 'stop' && chunk.reason === 'max_tokens') stopReason = 'maxTokens'
      }
      signal.throwIfAborted()
      return { text, model: config.model, stopReason }
    },
  }
}
