import { branchTitle, rewindPoints, type Session, type SessionStore } from '../../session/index.js'
import { afterTurnEnds } from './after-turn.js'

/**
 * `/rewind [N]`: undoes the last N prompts (default 1; slash commands do not count) for editors
 * with neither rewind extension. The command's own turn cannot be rewound while it runs, so it
 * answers what it will do and the rewind happens once its turn has ended and is durable, before
 * the prompt is answered: the session then holds what it held before the N-th last prompt (this
 * `/rewind` turn goes too), and everything removed is kept in an archived branch session. Files
 * are not restored (the `_session/rewind` methods do that).
 */
export const rewindCommand = {
  name: 'rewind',
  description: 'Undo the last N prompts (default 1); what is removed is kept in an archived session',
  hint: 'how many prompts to undo (default 1)',
  // The `SlashCommand` shape (commands.ts), spelled out: commands.ts imports this file.
  async run({
    session,
    sessions,
    args,
    turnStart,
  }: {
    readonly session: Session
    readonly sessions: SessionStore
    readonly args: string
    readonly turnStart: number
  }): Promise<string> {
    const text = args.trim()
    if (text !== '' && !/^[1-9]\d{0,5}$/.test(text)) {
      return `Usage: /rewind [N], N a positive number of prompts. ${JSON.stringify(text)} is not one.`
    }
    const count = text === '' ? 1 : Number(text)
    const prompts = rewindPoints(session).filter((p) => !p.command && p.seq < turnStart)
    if (prompts.length === 0) return 'Nothing to rewind: there is no prompt before this one.'
    if (count > prompts.length) {
      return `Cannot undo ${count} prompts: there ${prompts.length === 1 ? 'is 1' : `are ${prompts.length}`} (try /rewind ${prompts.length}).`
    }
    const target = prompts[prompts.length - count] as (typeof prompts)[number]
    const seed = session.header.seedLength ?? 0
    if (target.boundary < seed) {
      return `Cannot rewind before the first ${seed} events: this session was forked from ${session.header.parentSession} with them. Fork ${session.header.parentSession} there instead.`
    }
    const title = branchTitle(session)
    afterTurnEnds(session, async () => {
      const live = sessions.get(session.id)
      if (live) await sessions.rewind(live, target.boundary)
    })
    const quoted = target.text.length > 60 ? `${target.text.slice(0, 59)}…` : target.text
    return [
      `Rewound ${count === 1 ? 'the last prompt' : `the last ${count} prompts`}: the conversation goes on from before ${JSON.stringify(quoted)} (seq ${target.boundary}).`,
      `What was removed (and this /rewind) is kept in the archived session "${title}".`,
      'Files changed by tools are not restored.',
    ].join(' ')
  },
}
