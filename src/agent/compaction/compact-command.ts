import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import type { CommandContext, SlashCommand } from '../turn/commands/commands.js'
import type { CompactionResult } from './compactor.js'
import { type CompactionSettings, turnCompaction } from './turn-compaction.js'

/** `/compact`, with the agent's compaction settings. */
export function compactionFeature(host: FeatureHost): AgentFeature {
  return { commands: [compactCommand(host.config.compaction ?? {})] }
}

/**
 * `/compact [instructions]`: summarizes the conversation before this command (through the boundary
 * before its turn) with the session's model, so later requests send the summary instead. The
 * instructions say what the summary should keep. Cancelling the turn cancels it (nothing recorded).
 */
function compactCommand(settings: CompactionSettings): SlashCommand {
  return {
    name: 'compact',
    description: 'Summarize the conversation so far to free the context window (nothing is deleted)',
    hint: 'what the summary should keep',
    async run(context: CommandContext): Promise<string> {
      const compaction = turnCompaction(context, settings, context.turnStart, context.notices)
      return compactionReply(
        await compaction.run('command', context.requestShape(), { instructions: context.args }),
      )
    },
  }
}

/** What `/compact` answers for a compaction's result. */
export function compactionReply(result: CompactionResult): string {
  switch (result.status) {
    case 'completed': {
      const { tokensBefore, tokensAfter, droppedToolOutputs } = result.event.data
      const lines = [
        `Compacted the conversation through seq ${result.event.data.through}: about ${count(tokensBefore)} → ${count(tokensAfter)} tokens. Later requests send the summary instead; the full history stays in the session (fork before seq ${result.event.seq} to go back to it).`,
      ]
      if (droppedToolOutputs !== undefined)
        lines.push(
          `To fit the summary request, the ${droppedToolOutputs} oldest tool outputs were left out of it.`,
        )
      const { droppedMessages } = result.event.data
      if (droppedMessages !== undefined)
        lines.push(`Even so, the ${droppedMessages} oldest messages had to be left out of it too.`)
      return lines.join('\n')
    }
    case 'nothing':
      return `Nothing to compact: ${result.reason}.`
    case 'cancelled':
      return 'Compaction cancelled; the conversation is unchanged.'
    case 'failed':
      return `Compaction failed; the conversation is unchanged. ${result.error}`
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US')
}
