import type { FileRestoreReport } from '../../agent/checkpoints/restore-contract.js'
import { rewindSession, turnRunning } from '../../agent/rewind/rewind-session.js'
import {
  planRewind,
  type RewindPlan,
  rewindPointOf,
  rewindPoints,
  type Session,
} from '../../session/index.js'
import type { CallContext } from '../call-context.js'
import { ProtocolError } from '../errors.js'
import { openSession } from '../requests/session-access.js'
import { announceRewind } from './announce.js'
import type { ModeRewindParams } from './wire-schema.js'

export interface FilesHalf {
  canRewind: boolean
  filesChanged: string[]
  insertions?: number
  deletions?: number
  removed?: string[]
  conflicts?: { path: string; reason: string }[]
  commandsRan?: boolean
  warning?: string
  reason?: string
}

export interface ConversationHalf {
  rewound: boolean
  messagesDropped: number
  branchSessionId?: string
  reason?: string
}

export interface ModeRewindResult {
  files?: FilesHalf
  conversation?: ConversationHalf
}

/** The words of `commandsRan` (the dry run and the answer say them). */
export const COMMANDS_RAN_WARNING =
  'run_command or MCP tools ran in the rewound turns: what they changed on disk is not restored'

function filesHalfOf(report: FileRestoreReport): FilesHalf {
  return {
    canRewind: report.conflicts.length === 0,
    filesChanged: [...report.restored, ...report.removed],
    insertions: report.insertions,
    deletions: report.deletions,
    removed: [...report.removed],
    conflicts: report.conflicts.map(({ path, reason }) => ({ path, reason })),
    commandsRan: report.commandsRan,
    ...(report.commandsRan && { warning: COMMANDS_RAN_WARNING }),
  }
}

/**
 * The file half: how the files were when the last turn kept ended. In `both` (not a dry run) a
 * preview comes first and a conflict refuses the half before anything is written, so the
 * conversation half can be skipped with the tree untouched. A restore that throws is a refusal.
 */
async function filesHalf(
  call: CallContext,
  session: Session,
  plan: RewindPlan,
  options: { readonly dryRun: boolean; readonly strict: boolean },
): Promise<FilesHalf> {
  const boundary = plan.filesBoundary
  // This client's editor writes the files back, so its open buffers follow.
  const editor = call.clientBridge(session.id)
  try {
    if (options.strict && !options.dryRun) {
      const preview = filesHalfOf(await call.agent.restoreFiles({ session, boundary, dryRun: true }, editor))
      if (!preview.canRewind) {
        return {
          ...preview,
          reason: 'files changed since by someone else would be overwritten: nothing restored',
        }
      }
    }
    return filesHalfOf(await call.agent.restoreFiles({ session, boundary, dryRun: options.dryRun }, editor))
  } catch (error) {
    return { canRewind: false, filesChanged: [], reason: (error as Error).message }
  }
}

/**
 * The conversation half once the file half (`after.files`, if any) is done: skipped, previewed
 * (`after.dryRun`) or rewound.
 */
async function conversationHalf(
  call: CallContext,
  session: Session,
  plan: RewindPlan,
  after: { readonly files: FilesHalf | undefined; readonly dryRun: boolean },
): Promise<ConversationHalf> {
  const { files, dryRun } = after
  const messagesDropped = plan.messagesDropped
  if (files?.canRewind === false) {
    return {
      rewound: false,
      messagesDropped,
      reason: 'the file half was refused, so the conversation was left as it is',
    }
  }
  if (dryRun) return { rewound: false, messagesDropped }
  const done = await rewindSession(call.agent, call.sessions, session, { boundary: plan.boundary })
  if ('rewound' in done) return { rewound: false, messagesDropped, reason: done.reason }
  announceRewind(call, done)
  return { rewound: true, messagesDropped, branchSessionId: done.branch.sessionId }
}

/** Why neither half may start: a running turn; in `both`, a conversation rewind into the fork seed. */
function refusalOf(
  call: CallContext,
  session: Session,
  mode: NonNullable<ModeRewindParams['mode']>,
  plan: RewindPlan,
): string | undefined {
  if (turnRunning(call.agent, session)) return 'a turn is running: cancel it first'
  const seed = plan.intoSeed
  if (mode !== 'both' || seed === undefined) return undefined
  return `this session was forked from ${seed.parentSession} with its first ${seed.seedLength} events: the conversation cannot be rewound before them, so neither half is done`
}

/**
 * claude-agent-acp's `_session/rewind` with modes: `files` (the default) restores the files,
 * `conversation` rewinds the session in place to before the prompt `messageId` (its messages go;
 * they are kept in an archived branch session), `both` does the file half first and skips the
 * conversation half when the file half is refused. `dryRun` changes nothing and says what would
 * be done. Each half is present only when the mode asked for it. A running turn refuses both
 * halves ("cancel first"). Unlike claude's, a conversation rewind of the first prompt works, and
 * it is durable at once.
 */
export async function modeRewind(params: ModeRewindParams, call: CallContext): Promise<ModeRewindResult> {
  const session = await openSession(call, params.sessionId)
  const mode = params.mode ?? 'files'
  const dryRun = params.dryRun === true
  const point = rewindPointOf(rewindPoints(session), params.messageId)
  if (!point) {
    throw ProtocolError.invalidParams(
      `_session/rewind: session ${session.id} holds no user message ${JSON.stringify(params.messageId)}`,
      { sessionId: session.id, messageId: params.messageId },
    )
  }
  const plan = planRewind(session, point.boundary)
  const result: ModeRewindResult = {}
  const reason = refusalOf(call, session, mode, plan)
  if (reason !== undefined) {
    if (mode !== 'conversation') result.files = { canRewind: false, filesChanged: [], reason }
    if (mode !== 'files')
      result.conversation = { rewound: false, messagesDropped: plan.messagesDropped, reason }
    return result
  }
  if (mode !== 'conversation') {
    result.files = await filesHalf(call, session, plan, { dryRun, strict: mode === 'both' })
  }
  if (mode !== 'files')
    result.conversation = await conversationHalf(call, session, plan, { files: result.files, dryRun })
  return result
}
