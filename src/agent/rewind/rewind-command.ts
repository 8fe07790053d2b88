import { planRewind, type Session, type SessionStore, undoablePrompts } from '../../session/index.js'
import type { FileRestoreReport, RestoreFiles } from '../checkpoints/restore-contract.js'
import type { AgentFeature, FeatureHost } from '../features/agent-feature.js'
import { afterTurnEnds, runAfterTurn } from './after-turn.js'

/** `/rewind`, with the agent's file restore, and the rewind it leaves for after its turn. */
export function rewindFeature(host: FeatureHost): AgentFeature {
  return { commands: [rewindCommand(host.restoreFiles)], afterTurn: runAfterTurn }
}

/**
 * `/rewind [N]`: undoes the last N prompts (default 1; slash commands do not count) for editors
 * with neither rewind extension. The command's own turn cannot be rewound while it runs, so it
 * answers what it will do and the rewind happens once its turn has ended and is durable, before
 * the prompt is answered: the session then holds what it held before the N-th last prompt (this
 * `/rewind` turn goes too), and everything removed is kept in an archived branch session. The
 * files the built-in tools changed in the undone turns are put back first (a file changed since
 * by someone else is left and named; what commands changed is not restored), as the answer says.
 */
export function rewindCommand(restoreFiles?: RestoreFiles) {
  return {
    name: 'rewind',
    description: 'Undo the last N prompts (default 1); what is removed is kept in an archived session',
    hint: 'how many prompts to undo (default 1)',
    run: (context: RewindContext) => rewindNow(context, restoreFiles),
  }
}

/** What `/rewind` uses of a `CommandContext` (so that a test can run it on a bare session). */
interface RewindContext {
  readonly session: Session
  readonly sessions: SessionStore
  readonly args: string
  readonly turnStart: number
}

async function rewindNow(
  { session, sessions, args, turnStart }: RewindContext,
  restoreFiles: RestoreFiles | undefined,
): Promise<string> {
  const text = args.trim()
  if (text !== '' && !/^[1-9]\d{0,5}$/.test(text)) {
    return `Usage: /rewind [N], N a positive number of prompts. ${JSON.stringify(text)} is not one.`
  }
  const count = text === '' ? 1 : Number(text)
  const prompts = undoablePrompts(session, turnStart)
  if (prompts.length === 0) return 'Nothing to rewind: there is no prompt before this one.'
  if (count > prompts.length) {
    return `Cannot undo ${count} prompts: there ${prompts.length === 1 ? 'is 1' : `are ${prompts.length}`} (try /rewind ${prompts.length}).`
  }
  const target = prompts[prompts.length - count] as (typeof prompts)[number]
  const plan = planRewind(session, target.boundary)
  const seed = plan.intoSeed
  if (seed !== undefined) {
    return `Cannot rewind before the first ${seed.seedLength} events: this session was forked from ${seed.parentSession} with them. Fork ${seed.parentSession} there instead.`
  }
  // What the restore will do, said now; it runs once this turn has ended (no turn may run then).
  const preview = restoreFiles
    ? await restoreFiles({ session, boundary: plan.boundary, dryRun: true }).catch(() => undefined)
    : undefined
  afterTurnEnds(session, async () => {
    const live = sessions.get(session.id)
    if (!live) return
    if (preview) await restoreFiles?.({ session: live, boundary: plan.boundary, dryRun: false })
    await sessions.rewind(live, plan.boundary)
  })
  const quoted = target.text.length > 60 ? `${target.text.slice(0, 59)}…` : target.text
  return [
    `Rewound ${count === 1 ? 'the last prompt' : `the last ${count} prompts`}: the conversation goes on from before ${JSON.stringify(quoted)} (seq ${plan.boundary}).`,
    `What was removed (and this /rewind) is kept in the archived session "${plan.branchTitle}".`,
    filesSaid(preview),
  ].join(' ')
}

/** What the answer says of the files, from the restore's dry run. */
function filesSaid(report: FileRestoreReport | undefined): string {
  if (!report) return 'Files changed by tools are not restored.'
  const said: string[] = []
  const changed = report.restored.length + report.removed.length
  said.push(
    changed === 0
      ? 'No file the tools changed needs restoring.'
      : `Files the tools changed are put back (${report.restored.length} restored, ${report.removed.length} removed).`,
  )
  if (report.conflicts.length > 0) {
    said.push(`Left as they are: ${report.conflicts.map((c) => `${c.path} (${c.reason})`).join('; ')}.`)
  }
  if (report.commandsRan) said.push('Commands ran in those turns: what they changed is not restored.')
  return said.join(' ')
}
