import { describeExit, exitStatus } from './agent-exit.js'
import { parseToolCommandLine, UsageError } from './command-line.js'
import { AgentStartError, record } from './record.js'

const fail = (command: string, message: string) => process.stderr.write(`dsh-acp ${command}: ${message}\n`)

/**
 * Runs `dsh-acp record ...` (argv from the subcommand on) and resolves the process's exit status:
 * the agent's for record, 2 for usage or start errors. Loaded lazily by `cli.ts`, so the server's
 * start-up never pays for it.
 */
export async function runToolCommand(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseToolCommandLine>
  try {
    parsed = parseToolCommandLine(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    fail(argv[0] ?? '', `${error.message} (see --help)`)
    return 2
  }
  if (parsed.command === 'help') {
    process.stdout.write(parsed.usage)
    return 0
  }
  if (parsed.command === 'replay') {
    fail('replay', 'not in this build')
    return 2
  }
  try {
    const exit = await record({ out: parsed.out, agent: parsed.agent })
    if (exit.code !== 0) fail('record', `the agent ended with ${describeExit(exit)}`)
    return exitStatus(exit)
  } catch (error) {
    if (!(error instanceof AgentStartError)) throw error
    fail('record', error.message)
    return 2
  }
}
