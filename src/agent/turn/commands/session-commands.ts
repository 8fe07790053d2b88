import { isSessionError, normalizeTitle, titleUpdate } from '../../../session/index.js'
import type { AgentFeature } from '../../features/agent-feature.js'
import type { SlashCommand } from './commands.js'

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

/** `/fork` and `/title`: what every session offers about itself. */
export function sessionCommands(): AgentFeature {
  return { commands: [forkCommand, titleCommand] }
}
