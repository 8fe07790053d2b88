import { positive } from '../config/agent-config.js'
import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import { SessionGoals } from './session-goals.js'

/**
 * Session goals: a {@link SessionGoals} for the protocol layer (`agent.features.get(SessionGoals)`),
 * which hears every cancel of a session's work and forgets a disposed session.
 */
export function goalsFeature(host: FeatureHost): AgentFeature {
  const goals = new SessionGoals(host.tools, host.sessions, {
    maxIterations: positive('goals.maxIterations', host.config.goals?.maxIterations ?? 20),
    maxSteps: host.maxSteps,
  })
  return {
    api: goals,
    cancel: (sessionId) => goals.noteCancel(sessionId),
    forget: (sessionId) => void goals.forget(sessionId),
  }
}
