import {
  isSessionError,
  normalizeTitle,
  type Session,
  type SessionStore,
  type SessionUpdate,
  titleUpdate,
} from '../../session/index.js'
import type { RestoreFiles } from '../checkpoints/restore-contract.js'
import { compactCommand } from '../compaction/compact-command.js'
import type { CompactionResult } from '../compaction/compactor.js'
import { rewindCommand } from '../rewind/rewind-command.js'
import type { ContentBlock } from '../types.js'
import { reloadInstructionsCommand } from './reload-instructions-command.js'

/** What a slash command gets to run: the session, the store, and the text after its name. */
export interface CommandContext {
  readonly session: Session
  readonly sessions: SessionStore
  readonly args: string
  /** The seq of the `turn/start` of the turn that runs the command. */
  readonly turnStart: number
  /** Streams one update to the client, tagged with the seq of the event it came from. */
  readonly send: (update: SessionUpdate, seq: number) => void
  /** The turn's signal (the user cancelled the command's turn). */
  readonly signal: AbortSignal
  /** Compacts the conversation through the boundary before this turn (compact-command.ts). */
  readonly compact: (instructions: string) => Promise<CompactionResult>
  /** Puts the files the session's tools changed back as they were at a boundary (absent: cannot). */
  readonly restoreFiles?: RestoreFiles
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

const forkCommand: SlashCommand = {
  name: 'fork',
  description: 'Fork this session into a new one (for editors without a fork button) and say its id',
  hint: 'seq to fork at (default: before this command)',
  async run({ session, sessions, args, turnStart }) {
    const text = args.trim()
    if (text !== '' && !/^\d+$/.test(text)) return `Usage: /fork [seq]. ${JSON.stringify(text)} is not a seq.`
    const boundary = text === '' ? turnStart - 1 : Number(text)
    try {
      const child = await sessions.forkDurable(session, boundary)
      return `Forked ${session.id} at seq ${boundary} into ${child.id}${child.title !== undefined ? ` ("${child.title}")` : ''}. Load or resume ${child.id} to go on there.`
    } catch (error) {
      if (isSessionError(error)) return `Cannot fork at seq ${boundary}: ${error.message}.`
      throw error
    }
  },
}

const titleCommand: SlashCommand = {
  name: 'title',
  description: 'Set the title of this session',
  hint: 'the new title',
  async run({ session, args, send }) {
    const title = normalizeTitle(args)
    if (title === '') return 'Usage: /title TEXT'
    const event = session.append({ type: 'session/title', data: { title } })
    send(titleUpdate(title, event.time), event.seq)
    return `Title set: ${title}`
  },
}

const helpCommand: SlashCommand = {
  name: 'help',
  description: 'List the commands this agent understands',
  async run() {
    return [
      'Commands:',
      ...SLASH_COMMANDS.map(
        (c) => `/${c.name}${c.hint !== undefined ? ` [${c.hint}]` : ''}: ${c.description}`,
      ),
    ].join('\n')
  },
}

/** The slash commands every session offers (`available_commands_update`). */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  forkCommand,
  titleCommand,
  rewindCommand,
  compactCommand,
  reloadInstructionsCommand,
  helpCommand,
]

/**
 * The command a prompt invokes: its first block is text `/name` (then whitespace and arguments)
 * naming one of {@link SLASH_COMMANDS}. Anything else (also an unknown `/name`) goes to the model.
 */
export function parseCommand(
  prompt: readonly ContentBlock[],
): { readonly command: SlashCommand; readonly args: string } | undefined {
  const first = prompt[0]
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined
  const match = /^\s*\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(first.text)
  if (!match) return undefined
  const command = SLASH_COMMANDS.find((c) => c.name === match[1])
  return command ? { command, args: match[2] ?? '' } : undefined
}
