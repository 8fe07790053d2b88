import type { SessionEvent } from './log/events.js'

/** A configuration value as the log records it (ACP select options are strings, toggles booleans). */
export type ConfigValue = string | boolean

/**
 * A session's configuration as its log records it: the last `config/set` value per option. Only
 * what was set is here; the agent supplies defaults for the rest. `mode`, `model` and
 * `thoughtLevel` are the options every part of the server reads (undefined: never set, or not a
 * string).
 */
export interface SessionConfig {
  readonly values: Readonly<Record<string, ConfigValue>>
  readonly mode: string | undefined
  readonly model: string | undefined
  readonly thoughtLevel: string | undefined
}

/** Option ids with a fixed meaning across the server (ACP config option ids). */
export const CONFIG_OPTION = { mode: 'mode', model: 'model', thoughtLevel: 'thought_level' } as const

const asString = (value: ConfigValue | undefined) => (typeof value === 'string' ? value : undefined)

/** The configuration of `values` (last value per option). */
export function configOf(values: Readonly<Record<string, ConfigValue>>): SessionConfig {
  const frozen = Object.freeze({ ...values })
  return Object.freeze({
    values: frozen,
    mode: asString(frozen[CONFIG_OPTION.mode]),
    model: asString(frozen[CONFIG_OPTION.model]),
    thoughtLevel: asString(frozen[CONFIG_OPTION.thoughtLevel]),
  })
}

/** Projection of a log (pure): the configuration after its last event. */
export function sessionConfig(events: Iterable<SessionEvent>): SessionConfig {
  const values: Record<string, ConfigValue> = Object.create(null)
  for (const event of events) {
    if (event.type === 'config/set') values[event.data.option] = event.data.value
  }
  return configOf(values)
}
