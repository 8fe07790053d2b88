import type * as acp from '@agentclientprotocol/sdk'
import {
  type AgentService,
  type ConfigOptionSpec,
  effectiveConfig,
  SESSION_MODES,
} from '../../agent/index.js'
import {
  CONFIG_OPTION,
  type ConfigValue,
  configOf,
  type Session,
  type SessionUpdate,
} from '../../session/index.js'

function renderOption(spec: ConfigOptionSpec, currentValue: string): acp.SessionConfigOption {
  return {
    type: 'select',
    id: spec.id,
    name: spec.name,
    description: spec.description,
    category: spec.category,
    currentValue,
    options: spec.choices.map((choice) => ({
      value: choice.value,
      name: choice.name,
      ...(choice.description !== undefined && { description: choice.description }),
    })),
  }
}

/** ACP `configOptions` for a configuration (recorded values; defaults for the rest). */
export function configOptionsFor(
  agent: AgentService,
  values: Readonly<Record<string, ConfigValue>>,
): acp.SessionConfigOption[] {
  const effective = effectiveConfig(agent.configSpecs, configOf(values))
  return agent.configSpecs.map((spec) => renderOption(spec, effective.values[spec.id] ?? spec.defaultValue))
}

/** ACP `modes` (the same choice as the `mode` config option, for clients that use modes). */
export function modesFor(
  agent: AgentService,
  values: Readonly<Record<string, ConfigValue>>,
): acp.SessionModeState {
  return {
    currentModeId: effectiveConfig(agent.configSpecs, configOf(values)).mode,
    availableModes: SESSION_MODES.map((mode) => ({
      id: mode.id,
      name: mode.name,
      description: mode.description,
    })),
  }
}

/**
 * What the answers of `session/new`, `load`, `resume` and `fork` carry about the session's
 * configuration: its `configOptions` and `modes`, current values restored from its log.
 */
export function sessionSetup(
  agent: AgentService,
  session: Session,
): { configOptions: acp.SessionConfigOption[]; modes: acp.SessionModeState } {
  return {
    configOptions: configOptionsFor(agent, session.config.values),
    modes: modesFor(agent, session.config.values),
  }
}

/**
 * The updates a `config/set` of `option` stands for, live and in a replay: `current_mode_update`
 * when the mode was set, then `config_option_update` with every option's value.
 */
export function configUpdates(agent: AgentService) {
  return (values: Readonly<Record<string, ConfigValue>>, option: string): SessionUpdate[] => {
    const options: SessionUpdate = {
      sessionUpdate: 'config_option_update',
      configOptions: configOptionsFor(agent, values),
    }
    if (option !== CONFIG_OPTION.mode) return [options]
    return [
      { sessionUpdate: 'current_mode_update', currentModeId: modesFor(agent, values).currentModeId },
      options,
    ]
  }
}
