import type * as acp from '@agentclientprotocol/sdk'
import { isObject } from '../../lib/is.js'

/**
 * What `initialize` answers in `_meta` about rewind, where each contract says its clients look:
 * - `sessionRewind {version: 1, method: "_session/rewind", ...}` at the top level, and, for a
 *   client that declares JetBrains AIR (`clientCapabilities._meta.jetbrains.air` with an integer
 *   `version` >= 1 and a `capabilities` array), `"sessionRewind"` in
 *   `_meta.jetbrains.air.capabilities` (a client that is not AIR gets no `jetbrains` key);
 * - `claudeCode.rewindSession {modes}`: the modes `_session/rewind` with `messageId` accepts.
 */
export function rewindInitializeMeta(client: acp.ClientCapabilities | undefined): Record<string, unknown> {
  return {
    sessionRewind: {
      version: 1,
      method: '_session/rewind',
      sameSession: true,
      durable: true,
      firstMessage: true,
      interruptIfRunning: true,
      changesFiles: false,
    },
    claudeCode: { rewindSession: { modes: ['files', 'conversation', 'both'] } },
    ...(declaresAir(client) && { jetbrains: { air: { version: 1, capabilities: ['sessionRewind'] } } }),
  }
}

function declaresAir(client: acp.ClientCapabilities | undefined): boolean {
  const jetbrains = client?._meta?.jetbrains
  const air = isObject(jetbrains) ? jetbrains.air : undefined
  if (!isObject(air)) return false
  const version = air.version
  return Number.isSafeInteger(version) && (version as number) >= 1 && Array.isArray(air.capabilities)
}
