import { TranscriptFormatError, TranscriptOpenError } from '../process/transcript.js'
import { describeExit, exitStatus } from './agent-exit.js'
import { parseToolCommandLine, type ReplayCommandLine, UsageError } from './command-line.js'
import { type CompiledRule, RulesError, readRulesFile } from './compare/rules.js'
import { ReplayStartError } from './engine/engine.js'
import { AgentStartError, record } from './record.js'
import { replay, writeUpdatedTranscript } from './replay.js'
import { renderJson, renderText } from './report.js'
import { readScript } from './script.js'

const fail = (command: string, message: string) => process.stderr.write(`dsh-acp ${command}: ${message}\n`)

/**
 * Runs `dsh-acp record ...` or `dsh-acp replay ...` (argv from the subcommand on) and resolves the
 * process's exit status: for record the agent's; for replay 0 equal, 1 differences, 2 usage or
 * start errors. Loaded lazily by `cli.ts`, so the server's start-up never pays for it.
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
  if (parsed.command === 'replay') return runReplay(parsed)
  try {
    const exit = await record({ out: parsed.out, agent: parsed.agent })
    if (exit.code !== 0) fail('record', `the agent ended with ${describeExit(exit)}`)
    return exitStatus(exit)
  } catch (error) {
    if (!(error instanceof AgentStartError || error instanceof TranscriptOpenError)) throw error
    fail('record', error.message)
    return 2
  }
}

async function runReplay(options: ReplayCommandLine): Promise<number> {
  let script: ReturnType<typeof readScript>
  const rules: CompiledRule[] = []
  try {
    script = readScript(options.file)
    for (const file of options.rules) rules.push(...readRulesFile(file))
  } catch (error) {
    if (error instanceof TranscriptFormatError || error instanceof RulesError) {
      fail('replay', error.message)
      return 2
    }
    if ((error as NodeJS.ErrnoException).code !== undefined) {
      fail('replay', (error as Error).message)
      return 2
    }
    throw error
  }
  if (script.lines.length === 0) {
    fail('replay', `${options.file} holds no messages`)
    return 2
  }
  let report: Awaited<ReturnType<typeof replay>>
  try {
    report = await replay({
      script,
      launch: () => options.agent,
      rules,
      placeholders: options.placeholders,
      looseOrder: options.looseOrder,
      validate: options.validate,
      timeoutMs: options.timeoutMs,
    })
  } catch (error) {
    if (!(error instanceof ReplayStartError)) throw error
    fail('replay', error.message)
    return 2
  }
  if (options.json) process.stdout.write(renderJson(report, options.file))
  else process.stdout.write(renderText(report, options.file))
  if (!options.update || report.differences.length === 0) return report.equal ? 0 : 1
  if (report.connections.some((c) => !c.completed)) {
    fail('replay', `${options.file} not updated: the replay did not run to the end`)
    return 1
  }
  writeUpdatedTranscript(
    options.file,
    report,
    script.lines.some((l) => l.ms !== undefined),
    options.placeholders,
  )
  process.stderr.write(`dsh-acp replay: rewrote ${options.file} from this run\n`)
  return report.violations.length === 0 ? 0 : 1
}
