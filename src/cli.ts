#!/usr/bin/env node
import type { Readable } from 'node:stream'
import { capabilitiesAtStart } from './acp/capabilities.js'
import type { ClientState } from './acp/client-state.js'
import { pinnedVersion } from './acp/v2/version-choice.js'
import { promptCapabilitiesOf } from './agent/config/prompt-capabilities.js'
import { DEFAULT_MAX_LINE_BYTES } from './jsonrpc/read/line-splitter.js'
import { packageVersion } from './lib/package-version.js'
import { type CliOptions, parseCli, setupArguments, usage } from './process/cli-args.js'
import { runConfig } from './process/config/run-config.js'
import { earlyInitialize } from './process/early-start/early-initialize.js'
import { HeldInput } from './process/early-start/held-input.js'
import type { RemoteOptions } from './process/remote/remote-options.js'
import type { ServeStart } from './process/serve.js'

const version = packageVersion()

/**
 * Output of the commands that do not serve ACP (help, version, sessions) goes to stdout like any
 * command's. `serve` never calls this: there stdout carries protocol messages only.
 */
function printToTerminal(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

/**
 * Serving starts with what `initialize` needs and nothing more: the model provider (a bad model
 * spec still fails before anything is answered) and stdin's first line. When that line is an
 * `initialize`, it is answered at once (early-initialize.ts), and the rest of the server (cordis,
 * the store and its tidy-up, the agent, the JSON-RPC engine) is loaded and built after the
 * answer; the connection then reads stdin from the second line on. With `--transcript` the
 * connection reads every line itself, so the transcript sees them all.
 */
/** What a person who started the server by hand in a terminal is told: it waits for an editor. */
const TERMINAL_HINT = `dsh-acp speaks the Agent Client Protocol (JSON-RPC, one message per line) on stdin and stdout: an editor starts it and talks to it.
Try it by hand by pasting:
  {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
End with Ctrl-D. \`dsh-acp --help\` lists the options; the README shows how to register it in Zed or JetBrains.
`

async function serve(argv: readonly string[], parsed: CliOptions): Promise<void> {
  if (process.stdin.isTTY) process.stderr.write(TERMINAL_HINT)
  // Flags over the configuration files over the defaults (process/config/); a bad file is
  // reported, not fatal: the server starts without it.
  const run = await runConfig(argv, parsed)
  const { options, provider, setup } = run
  const agentInfo = { name: 'dsh-acp', title: 'dsh-acp', version }
  let start: ServeStart = {
    provider,
    agentInfo,
    takeInput: () => process.stdin,
    setup,
    modelsFromFile: run.modelsFromFile,
    configProblems: run.problems,
    commandEnv: run.resolved.commandEnv,
    ...(run.resolved.mcpSamplingPerTurn !== undefined && {
      mcpSamplingPerTurn: run.resolved.mcpSamplingPerTurn,
    }),
    ...(run.defaultMode !== undefined && { defaultMode: run.defaultMode }),
  }
  if (options.transcript === undefined) {
    const held = new HeldInput(process.stdin, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
    const line = await held.firstLine
    const capabilities = capabilitiesAtStart({
      fork: options.fork,
      promptCapabilities: promptCapabilitiesOf(provider),
    })
    const answer =
      line &&
      earlyInitialize(
        line,
        { capabilities, agentInfo, authMethods: (client) => setup.authMethods(client) },
        pinnedVersion(options.protocol),
      )
    // Until the connection's writer listens, an EPIPE must not become an uncaught exception.
    const ignore = () => {}
    process.stdout.on('error', ignore)
    if (answer) process.stdout.write(`${answer.response}\n`)
    const earlyReplay = answer && (await loadEarly(held, answer.client, options.storeDir))
    start = {
      ...start,
      takeInput: (): Readable => {
        process.stdout.off('error', ignore)
        return held.release(answer !== undefined)
      },
      ...(answer && { early: { client: answer.client, ...(earlyReplay && { replay: earlyReplay }) } }),
    }
  }
  const served = await import('./process/serve.js')
  try {
    await served.serve(options, start)
  } catch (error) {
    process.stdin.destroy()
    throw error
  }
}

/** How long a new process waits for the request after `initialize` before it builds the server. */
const NEXT_REQUEST_WAIT_MS = 5
/** The longest such request looked at (a `session/load` is a few hundred bytes). */
const NEXT_REQUEST_MAX_BYTES = 64 * 1024

/**
 * When the client's next line, arriving within {@link NEXT_REQUEST_WAIT_MS}, looks like a
 * `session/load` (or v2's `session/resume`), sends the head of its replay before the server is
 * built (process/early-start/early-load.ts, which decides whether it is one); the connection's
 * handler then goes on from there. Anything else is left to the connection, as it was.
 */
async function loadEarly(held: HeldInput, client: ClientState, store: string | null | undefined) {
  if (store === null) return undefined
  const line = await held.nextLine(NEXT_REQUEST_WAIT_MS, NEXT_REQUEST_MAX_BYTES)
  if (line === undefined || !(line.includes('"session/load"') || line.includes('"session/resume"')))
    return undefined
  const { earlyLoad } = await import('./process/early-start/early-load.js')
  return earlyLoad(line, { client, store, write: (text) => process.stdout.write(text) })
}

async function main(): Promise<void> {
  if (process.argv[2] === 'record' || process.argv[2] === 'replay') {
    const { runToolCommand } = await import('./replay/cli.js')
    process.exitCode = await runToolCommand(process.argv.slice(2))
    return
  }
  if (process.argv[2] === 'trust') {
    const { runTrustCommand } = await import('./process/trust/trust-command.js')
    const terminal = { out: printToTerminal, err: (text: string) => process.stderr.write(`${text}\n`) }
    process.exitCode = runTrustCommand(process.argv.slice(3), terminal)
    return
  }
  if (process.argv[2] === 'store') {
    const { runStoreCommand } = await import('./process/store/store-command.js')
    process.exitCode = await runStoreCommand(process.argv.slice(3))
    return
  }
  if (process.argv[2] === 'connect') {
    const { runConnect } = await import('./process/remote/connect-command.js')
    process.exitCode = await runConnect(process.argv.slice(3))
    return
  }
  const argv = process.argv.slice(2)
  const setupArgs = setupArguments(argv)
  if (setupArgs !== undefined) {
    const { runSetupCommand } = await import('./process/setup/setup-command.js')
    process.exitCode = await runSetupCommand(setupArgs)
    return
  }
  let options: CliOptions
  try {
    options = parseCli(argv)
  } catch (error) {
    process.stderr.write(`dsh-acp: ${(error as Error).message}\n\n${usage()}`)
    process.exitCode = 2
    return
  }
  if (options.command === 'help') {
    printToTerminal(usage())
    return
  }
  if (options.command === 'version') {
    printToTerminal(version)
    return
  }
  if (options.command === 'sessions') {
    // Subcommands load their code only when run: starting the server must not pay for them.
    const [{ printLineage }, { LOG_LEVELS, routeLogsToStderr }, { resolveStoreDir }] = await Promise.all([
      import('./process/sessions-command.js'),
      import('./process/logging.js'),
      import('./persistence/index.js'),
    ])
    routeLogsToStderr(LOG_LEVELS[options.logLevel])
    await printLineage(options.storeDir ?? resolveStoreDir(process.env), printToTerminal)
    return
  }
  if (options.command === 'config') {
    const { printConfig } = await import('./process/config/print/print-config.js')
    await printConfig(argv, options, printToTerminal)
    return
  }
  const remote = options.remote
  if (remote && options.command === 'serve') {
    await serveOnNetwork(argv, options, remote)
    return
  }
  if (remote) throw new Error('--listen and the other remote options go with serve only')
  await serve(argv, options)
}

/** `dsh-acp serve --listen`: no stdin to hold, no early initialize; see process/remote/. */
async function serveOnNetwork(argv: readonly string[], parsed: CliOptions, remote: RemoteOptions) {
  const run = await runConfig(argv, parsed)
  const { serveRemote } = await import('./process/remote/serve-remote.js')
  await serveRemote(run.options, remote, {
    provider: run.provider,
    agentInfo: { name: 'dsh-acp', title: 'dsh-acp', version },
    setup: run.setup,
    modelsFromFile: run.modelsFromFile,
    configProblems: run.problems,
    ...(run.defaultMode !== undefined && { defaultMode: run.defaultMode }),
  })
}

main().catch((error: unknown) => {
  process.stderr.write(`dsh-acp: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
