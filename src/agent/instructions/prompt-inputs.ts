import { arch, platform as osPlatform } from 'node:os'
import {
  type ExtensionEventDataMap,
  extensionData,
  type Session,
  type SessionEvent,
} from '../../session/index.js'
import { lastRecorded } from '../shared/last-recorded.js'
import { readInstructionFiles } from './agents-files.js'
import { findGitRepository } from './git-repository.js'
import { userConfigDir } from './user-config-dir.js'

/** The event that records what a session's system prompt is built from (see event-definitions.ts). */
export const INSTRUCTIONS_SET = 'instructions:set' satisfies keyof ExtensionEventDataMap

/** What a session's system prompt is built from, as its log records it. */
export type PromptInputs = ExtensionEventDataMap[typeof INSTRUCTIONS_SET]

/** The inputs a session's log holds now: the last `instructions:set`, with its time (the prompt's date). */
export interface RecordedPromptInputs {
  readonly inputs: PromptInputs
  readonly time: string
  readonly seq: number
}

/**
 * Reads what a system prompt for `cwd` and `directories` is built from, as of now: the platform,
 * the shell (`$SHELL`, else `$ComSpec`), the git repository and branch of `cwd`, and the
 * `AGENTS.md` files (the user's config directory's from `env`, the additional directories' own,
 * and the project's from the repository root down to `cwd`).
 */
export async function collectPromptInputs(
  cwd: string,
  directories: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<PromptInputs> {
  const repository = await findGitRepository(cwd)
  const files = await readInstructionFiles({
    cwd,
    directories,
    userConfigDir: userConfigDir(env),
    ...(repository && { repositoryRoot: repository.root }),
  })
  return {
    platform: `${osPlatform()} ${arch()}`,
    shell: env.SHELL ?? env.ComSpec ?? '',
    cwd,
    directories: [...directories],
    files,
    ...(repository && { gitRoot: repository.root }),
    ...(repository?.branch !== undefined && { gitBranch: repository.branch }),
  }
}

/** The inputs the log of `session` records (its last valid `instructions:set`); undefined: none. */
export const recordedPromptInputs = lastRecorded<RecordedPromptInputs>((event) => {
  const inputs = extensionData(event, INSTRUCTIONS_SET)
  return inputs === undefined ? undefined : { inputs, time: event.time, seq: event.seq }
})

/**
 * Reads the inputs anew (for the session's cwd and its additional directories) and appends them as
 * an `instructions:set` event when they differ from what the log records; returns the event, or
 * undefined when nothing changed (nothing is written). The caller flushes.
 */
export async function recordPromptInputs(
  session: Session,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SessionEvent | undefined> {
  const inputs = await collectPromptInputs(session.cwd, session.additionalDirectories, env)
  const recorded = recordedPromptInputs(session)
  if (recorded !== undefined && JSON.stringify(recorded.inputs) === JSON.stringify(inputs)) return undefined
  return session.append({ type: INSTRUCTIONS_SET, data: inputs })
}

/** True when `provider` sends a system prompt and `session`'s log records no inputs for it yet. */
export function needsPromptInputs(
  provider: { readonly takesSystemPrompt?: boolean },
  session: Session,
): boolean {
  return provider.takesSystemPrompt === true && recordedPromptInputs(session) === undefined
}
