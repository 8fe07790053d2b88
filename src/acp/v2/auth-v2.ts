import type * as acp from '@agentclientprotocol/sdk'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'

/**
 * The auth methods v1 advertises, in v2's words: `methodId` (was `id`) and the required `type`
 * (`agent` where v1 leaves it out; `terminal` with its `env` as a list of `{name, value}`). Zed's
 * older `_meta["terminal-auth"]` form is v1's alone and is not carried over.
 */
export function authMethodsV2(methods: readonly acp.AuthMethod[]): v2.AuthMethod[] {
  return methods.map((method): v2.AuthMethod => {
    const description = method.description ?? undefined
    const common = { methodId: method.id, name: method.name, ...(description && { description }) }
    if (!('type' in method) || method.type !== 'terminal') return { ...common, type: 'agent' }
    const env = Object.entries(method.env ?? {}).map(([name, value]) => ({ name, value }))
    return { ...common, type: 'terminal', args: [...(method.args ?? [])], env }
  })
}

/**
 * A v2 client's `capabilities.auth.terminal` (an object marker) as v1's boolean, so the methods
 * offered to it and those `auth/login` accepts are worked out the same way as on v1.
 */
export function v2AuthCapabilities(capabilities: unknown): acp.ClientCapabilities {
  const auth = (capabilities as { auth?: { terminal?: unknown } | null } | null | undefined)?.auth
  const terminal = auth?.terminal
  return typeof terminal === 'object' && terminal !== null ? { auth: { terminal: true } } : {}
}
