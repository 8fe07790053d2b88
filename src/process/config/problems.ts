import type { Notice } from '../../agent/index.js'
/** One reason a configuration file (or part of it) was not used. */
export interface ConfigProblem {
  /** The file, as an absolute path. */
  readonly file: string
  /** The JSON pointer of the value at fault (RFC 6901; `` for the whole file). */
  readonly pointer: string
  /** What was expected there, or what is wrong, in words. */
  readonly message: string
}

/** One line naming the file, the pointer and what was expected. */
export function describeProblem(problem: ConfigProblem): string {
  const where = problem.pointer === '' ? problem.file : `${problem.file} at ${problem.pointer}`
  return `${where}: ${problem.message}`
}

/**
 * The notice for configuration problems found at start: undefined when there are none. Pure: the
 * caller decides where it goes (a `notice` update, else an agent message).
 */
export function configProblemsNotice(problems: readonly ConfigProblem[]): Notice | undefined {
  if (problems.length === 0) return undefined
  const files = [...new Set(problems.map((p) => p.file))]
  return {
    severity: 'error',
    title:
      files.length === 1
        ? `dsh-acp ignored its configuration file ${files[0]}`
        : `dsh-acp ignored ${files.length} configuration files`,
    description: `${problems.map(describeProblem).join('\n')}\nFix the file and restart the agent (\`dsh-acp config\` checks it); until then the command-line flags and built-in defaults apply.`,
  }
}

/** The notice as the text of one agent message (for clients without `session.notices`). */
export function noticeAsMessage(notice: Notice): string {
  return `**${notice.title}**${notice.description === undefined ? '' : `\n\n${notice.description}`}\n`
}
