/**
 * v1's config options in v2's words: `id` is `configId`, a select option's `group` is `groupId`.
 * Modes are one of them (category `mode`), so v2's answers carry no `modes`.
 */
export function configOptionsV2(options: unknown): unknown {
  if (!Array.isArray(options)) return options
  return options.map((option: unknown) => {
    if (!isRecord(option)) return option
    const { id, options: choices, ...rest } = option
    return { configId: id, ...rest, ...(choices !== undefined && { options: choicesV2(choices) }) }
  })
}

function choicesV2(choices: unknown): unknown {
  if (!Array.isArray(choices)) return choices
  return choices.map((choice: unknown) => {
    if (!isRecord(choice) || !('group' in choice)) return choice
    const { group, options, ...rest } = choice
    return { ...rest, groupId: group, ...(options !== undefined && { options }) }
  })
}

/** A v1 session answer (`session/new`, `load`, `resume`, `set_config_option`) in v2's words. */
export function sessionAnswerV2(answer: unknown): unknown {
  if (!isRecord(answer)) return answer
  const { modes: _modes, configOptions, ...rest } = answer
  return { ...rest, ...(configOptions !== undefined && { configOptions: configOptionsV2(configOptions) }) }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
