import type { Context } from 'cordis'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { defineMethod } from '../method.js'
import type { AcpServer } from '../server.js'
import { NO_PROVIDERS, ProviderRefusal, type ProviderSettings } from './provider-wire.js'

function settings(call: CallContext): ProviderSettings {
  return call.setup.providers ?? NO_PROVIDERS
}

/** Runs `change`; a ProviderRefusal becomes -32602 naming `method`. */
function refusedAsInvalidParams(method: string, change: () => void): void {
  try {
    change()
  } catch (error) {
    if (error instanceof ProviderRefusal) throw ProtocolError.invalidParams(`${method}: ${error.message}`)
    throw error
  }
}

/**
 * After a change: an `auth/status_update` to this connection when the auth status differs from
 * the one before (the unstable schema's SHOULD: only when it differs). Never holds a key.
 */
function announceAuthChange(call: CallContext, before: string): void {
  const after = settings(call).authStatus()
  if (JSON.stringify(after) !== before)
    call.afterResponse(() => call.notifyClient('auth/status_update', after))
}

/** `providers/list` → `{providers}`: the configuration file's providers, `current` null when disabled. */
export const providersListMethod = defineMethod({
  name: 'providers/list',
  handle(_params, call) {
    return { providers: settings(call).list() }
  },
})

/**
 * `providers/set {providerId, apiType, baseUrl, headers?}` → `{}`: points a configured provider at
 * an OpenAI-compatible server (recorded in the configuration file); `Authorization: Bearer KEY`
 * becomes its stored key. Another `apiType`, another header or an unknown provider is -32602.
 */
export const providersSetMethod = defineMethod({
  name: 'providers/set',
  handle(params, call) {
    const before = JSON.stringify(settings(call).authStatus())
    refusedAsInvalidParams('providers/set', () =>
      settings(call).set({
        providerId: params.providerId,
        apiType: params.apiType,
        baseUrl: params.baseUrl,
        ...(params.headers !== undefined && params.headers !== null && { headers: params.headers }),
      }),
    )
    announceAuthChange(call, before)
    return {}
  },
})

/** `providers/disable {providerId}` → `{}`: its models are no longer offered; a required one is -32602. */
export const providersDisableMethod = defineMethod({
  name: 'providers/disable',
  handle(params, call) {
    const before = JSON.stringify(settings(call).authStatus())
    refusedAsInvalidParams('providers/disable', () => settings(call).disable(params.providerId))
    announceAuthChange(call, before)
    return {}
  },
})

/** `auth/status` → `{state, accounts}`: whether each provider has a key, never the key. */
export const authStatusMethod = defineMethod({
  name: 'auth/status',
  handle(_params, call) {
    return settings(call).authStatus()
  },
})

/** Registers the provider and auth-status methods for as long as the calling plugin lives. */
export function registerProviderMethods(ctx: Context, server: AcpServer): void {
  for (const method of [providersListMethod, providersSetMethod, providersDisableMethod, authStatusMethod])
    ctx.on('dispose', server.register(method))
}
