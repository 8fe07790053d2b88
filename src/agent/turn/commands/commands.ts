import type { SessionStore } from '../../../session/index.js'
import type { RequestShape } from '../../compaction/turn-compaction.js'
import type { NoticeChannel } from '../../notices/notice.js'
import type { ContentBlock } from '../../types.js'
import type { TurnScope } from '../turn-scope.js'

/**
 * What a slash command gets to run: the turn's scope (its session, signal, update channel, model),
 * the store, and the text after its name. What a command needs beyond the turn (a restore, the
 * compaction settings) its feature gives it when it is built (see `AgentFeature`), not this.
 */
export interface CommandContext extends TurnScope {
  readonly sessions: SessionStore
  readonly args: string
  /** The seq of the `turn/start` of the turn that runs the command. */
  readonly turnStart: number
  /** What the turn's next model request would offer: its tools, model and system prompt. */
  readonly requestShape: () => RequestShape
  /** Where the turn's notices go. */
  readonly notices: NoticeChannel
}

/**
 * A slash command (ACP `AvailableCommand`): typed as a prompt starting with `/name`, recorded like
 * any prompt (the turn holds the user's text and the command's answer as the assistant message,
 * and a replay shows both), but answered by the agent itself instead of the model. Its turn's
 * `turn/start` names it (`command`), and the model's history leaves that turn out: a command is
 * not conversation.
 */
export interface SlashCommand {
  readonly name: string
  readonly description: string
  /** What to type after the name, shown by editors as a hint; absent: the command takes nothing. */
  readonly hint?: string
  run(context: CommandContext): Promise<string>
}

/** `/help`: lists `commands` (itself included). */
export function helpCommand(commands: () => readonly SlashCommand[]): SlashCommand {
  return {
    name: 'help',
    description: 'List the commands this agent understands',
    async run() {
      return [
        'Commands:',
        ...commands().map((c) => `/${c.name}${c.hint !== undefined ? ` [${c.hint}]` : ''}: ${c.description}`),
      ].join('\n')
    },
  }
}

/**
 * The command a prompt invokes: its first block is text `/name` (then whitespace and arguments)
 * naming one of `commands`. Anything else (also an unknown `/name`) goes to the model.
 */
export function parseCommand(
  prompt: readonly ContentBlock[],
  commands: readonly SlashCommand[],
): { readonly command: SlashCommand; readonly args: string } | undefined {
  const first = prompt[0]
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined
  const match = /^\s*\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(first.text)
  if (!match) return undefined
  const command = commands.find((c) => c.name === match[1])
  return command ? { command, args: match[2] ?? '' } : undefined
}
