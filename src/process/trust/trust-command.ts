import { existsSync, realpathSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { readTrust, trustFile, writeDecision } from './trust-store.js'

export const TRUST_USAGE = `Usage: dsh-acp trust [list]          list the folders decided about (trusted or declined)
       dsh-acp trust add PATH         trust the folder PATH (a repository root: the repository)
       dsh-acp trust decline PATH     decline PATH: its project configuration stays ignored
       dsh-acp trust remove PATH      forget the decision about PATH

A trusted folder's project configuration (.dsh-acp/config.json: MCP servers, settings) is used
by sessions in it and below it. Decisions are kept in $XDG_CONFIG_HOME/dsh-acp/trust.json
(~/.config/dsh-acp/trust.json), by real path; a running agent sees them at its next session.
`

interface Terminal {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  readonly env?: NodeJS.ProcessEnv
}

/** `dsh-acp trust ARGS`: lists or edits the workspace-trust decisions; answers the exit code. */
export function runTrustCommand(args: readonly string[], terminal: Terminal): number {
  const file = trustFile(terminal.env ?? process.env)
  const [verb = 'list', path, ...rest] = args
  if (verb === '--help' || verb === '-h' || verb === 'help') {
    terminal.out(TRUST_USAGE)
    return 0
  }
  if (verb === 'list' && path === undefined) return list(file, terminal)
  if (path === undefined || rest.length > 0 || !['add', 'decline', 'remove'].includes(verb)) {
    terminal.err(`dsh-acp trust: ${JSON.stringify(args.join(' '))} is not a trust command\n\n${TRUST_USAGE}`)
    return 2
  }
  const absolute = resolve(path)
  if (verb === 'remove') {
    const real = existsSync(absolute) ? realpathSync(absolute) : absolute
    const removed = writeDecision(file, real, undefined) || writeDecision(file, absolute, undefined)
    if (removed) terminal.out(`forgot the decision about ${real}`)
    else terminal.err(`dsh-acp trust: no decision about ${real} in ${file}`)
    return removed ? 0 : 1
  }
  if (!existsSync(absolute) || !statSync(absolute).isDirectory()) {
    terminal.err(`dsh-acp trust: ${absolute} is not a directory`)
    return 1
  }
  const real = realpathSync(absolute)
  const scope = existsSync(join(real, '.git')) ? 'repo' : 'cwd'
  const decision = verb === 'add' ? 'trusted' : 'declined'
  writeDecision(file, real, { decision, scope, at: new Date().toISOString() })
  terminal.out(`${decision} ${real}${scope === 'repo' ? ' (a repository)' : ''}: saved in ${file}`)
  return 0
}

function list(file: string, terminal: Terminal): number {
  const { entries, problems } = readTrust(file)
  for (const problem of problems) terminal.err(`dsh-acp trust: ${problem.file}: ${problem.message}`)
  if (entries.size === 0) terminal.out(`no folder is trusted or declined (${file})`)
  for (const [path, entry] of entries)
    terminal.out(`${entry.decision.padEnd(8)} ${entry.scope.padEnd(4)} ${path}  (${entry.at})`)
  return problems.length > 0 ? 1 : 0
}
