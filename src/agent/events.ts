import { KNOWN_EXTENSION_EVENT_TYPES } from '../session/index.js'

/**
 * The namespaced log events the agent writes: every type of the session layer's extension event
 * registry (`EXTENSION_EVENTS`, which `schemas/events.schema.json` describes).
 */
export const AGENT_EVENT_TYPES: readonly string[] = KNOWN_EXTENSION_EVENT_TYPES
