import type { AgentFeature } from '../../features/agent-feature.js'
import { recordedPromptInputs, recordPromptInputs } from '../../instructions/prompt-inputs.js'
import type { SlashCommand } from './commands.js'

/**
 * `/reload-instructions`: reads the environment and the `AGENTS.md` files again and, when they
 * changed, records them as a new `instructions:set` event: this session's system prompt follows
 * them from its next model request (other sessions keep theirs; new sessions read the files when
 * they are created). The answer lists the files now in the prompt.
 */
const reloadInstructionsCommand: SlashCommand = {
  name: 'reload-instructions',
  description: 'Read AGENTS.md and the environment again, for this session from its next request',
  async run({ session }) {
    const event = await recordPromptInputs(session)
    const files = recordedPromptInputs(session)?.inputs.files ?? []
    const list =
      files.length === 0
        ? 'No AGENTS.md file applies.'
        : `AGENTS.md files, in the order the model reads them (the last wins):\n${files
            .map(
              (file) =>
                `- ${file.path}${file.cut ? ` (cut: ${file.bytes} bytes are over the size limit)` : ''}`,
            )
            .join('\n')}`
    const head = event
      ? 'Instructions reloaded: the system prompt uses them from the next request.'
      : 'The instructions and the environment are as this session recorded them: nothing changed.'
    return `${head}\n${list}`
  },
}

/** `/reload-instructions`. */
export function instructionsFeature(): AgentFeature {
  return { commands: [reloadInstructionsCommand] }
}
