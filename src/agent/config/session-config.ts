import {
  CONFIG_OPTION,
  type ConfigValue,
  type Session,
  type SessionConfig,
  type SessionEvent,
} from '../../session/index.js'
import { AgentError, AgentErrorCode } from '../errors.js'
import type { ModelChoice, ModelProvider } from '../types.js'
import { DEFAULT_MODE, SESSION_MODES } from './modes.js'

/** One value of a select option. */
export interface ConfigChoice {
  readonly value: string
  readonly name: string
  readonly description?: string
}

/** A session configuration option this agent offers (an ACP select `SessionConfigOption`). */
export interface ConfigOptionSpec {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly category: 'mode' | 'model' | 'thought_level'
  readonly choices: readonly ConfigChoice[]
  readonly defaultValue: string
}

/** A session's effective configuration: what its log records, defaults for the rest. */
export interface EffectiveConfig {
  readonly mode: string
  readonly model: string
  readonly thoughtLevel: string | undefined
  /** Every option's current value, by option id, in the order of the specs. */
  readonly values: Readonly<Record<string, string>>
}

const choices = (list: readonly ModelChoice[]): ConfigChoice[] =>
  list.map((c) => ({
    value: c.id,
    name: c.name ?? c.id,
    ...(c.description && { description: c.description }),
  }))

/**
 * The options a provider allows: `mode` always, `model` (the provider's models; a provider that
 * lists none has the one model named like it), and `thought_level` when the provider declares
 * reasoning efforts. The mode's default is `defaultMode`; every other default is the first choice.
 */
export function configOptionSpecs(
  provider: ModelProvider,
  defaultMode: string = DEFAULT_MODE,
): ConfigOptionSpec[] {
  const models = provider.models && provider.models.length > 0 ? provider.models : [{ id: provider.name }]
  const specs: ConfigOptionSpec[] = [
    {
      id: CONFIG_OPTION.mode,
      name: 'Mode',
      description: 'How much the agent may do without asking',
      category: 'mode',
      choices: SESSION_MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
      defaultValue: defaultMode,
    },
    {
      id: CONFIG_OPTION.model,
      name: 'Model',
      description: 'The model that answers; a change applies from the next model request',
      category: 'model',
      choices: choices(models),
      defaultValue: (models[0] as ModelChoice).id,
    },
  ]
  const levels = provider.thoughtLevels
  if (levels && levels.length > 0) {
    specs.push({
      id: CONFIG_OPTION.thoughtLevel,
      name: 'Reasoning effort',
      description: 'How hard the model thinks before it answers',
      category: 'thought_level',
      choices: choices(levels),
      defaultValue: (levels[0] as ModelChoice).id,
    })
  }
  return specs
}

/** The value of `spec` in `config`: the recorded one while it is still a choice, else the default. */
function currentValue(spec: ConfigOptionSpec, config: SessionConfig): string {
  const recorded = config.values[spec.id]
  return typeof recorded === 'string' && spec.choices.some((c) => c.value === recorded)
    ? recorded
    : spec.defaultValue
}

export function effectiveConfig(specs: readonly ConfigOptionSpec[], config: SessionConfig): EffectiveConfig {
  const values: Record<string, string> = {}
  for (const spec of specs) values[spec.id] = currentValue(spec, config)
  return {
    mode: values[CONFIG_OPTION.mode] ?? DEFAULT_MODE,
    model: values[CONFIG_OPTION.model] ?? '',
    thoughtLevel: values[CONFIG_OPTION.thoughtLevel],
    values,
  }
}

/**
 * Checks that `option` is offered and `value` is one of its choices; throws `INVALID_CONFIG`
 * (naming both, and the allowed values) otherwise. Nothing is changed either way.
 */
export function assertConfigChoice(
  specs: readonly ConfigOptionSpec[],
  option: string,
  value: ConfigValue,
): ConfigOptionSpec {
  const spec = specs.find((s) => s.id === option)
  if (!spec) {
    throw new AgentError(
      AgentErrorCode.INVALID_CONFIG,
      `unknown config option ${JSON.stringify(option)}: this agent offers ${specs.map((s) => s.id).join(', ')}`,
      { configId: option, options: specs.map((s) => s.id) },
    )
  }
  if (typeof value !== 'string' || !spec.choices.some((c) => c.value === value)) {
    throw new AgentError(
      AgentErrorCode.INVALID_CONFIG,
      `${JSON.stringify(value)} is not a value of config option ${option}: expected one of ${spec.choices.map((c) => c.value).join(', ')}`,
      { configId: option, value, values: spec.choices.map((c) => c.value) },
    )
  }
  return spec
}

/**
 * Sets one option on `session`: appends and returns a `config/set` when the value changes (the log
 * is the configuration), else undefined. Throws `INVALID_CONFIG` for an option or value not
 * offered, leaving the log untouched.
 */
export function setSessionConfig(
  session: Session,
  specs: readonly ConfigOptionSpec[],
  option: string,
  value: ConfigValue,
): SessionEvent | undefined {
  assertConfigChoice(specs, option, value)
  if (session.config.values[option] === value) return undefined
  return session.append({ type: 'config/set', data: { option, value } })
}
