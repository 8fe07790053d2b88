#!/usr/bin/env node
import { createRequire } from 'node:module'
import { createApp } from './app.js'
import { type CliOptions, parseCli, USAGE } from './cli-args.js'
import { LOG_LEVELS, routeLogsToStderr } from './logging.js'
import { releaseMemoryOnClose } from './memory-release.js'
import { resolveStoreDir } from './persistence/index.js'
import { redactMcpSecrets } from './protocol/mcp-servers.js'
import { TranscriptRecorder } from './protocol/wire/index.js'
import { createSequentialIdGenerator } from './session/index.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

/**
 * Output of the commands that do not serve ACP (help, version, sessions) goes to stdout like any
 * command's. `serve` never calls this: there stdout carries protocol messages only.
 */
function printToTerminal(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

async function serve(options: CliOptions): Promise<void> {
  const app = await createApp({
    storeDir: options.storeDir === undefined ? resolveStoreDir(process.env) : options.storeDir,
    model: options.model,
    modelOptions: {
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...(options.modelName !== undefined && { modelName: options.modelName }),
      ...(options.imageInput && { imageInput: true }),
      ...(process.env.DSH_API_KEY !== undefined && { apiKey: process.env.DSH_API_KEY }),
      ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
      ...(options.requestTimeout !== undefined && { timeoutMs: options.requestTimeout * 1000 }),
    },
    ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
    ...(options.mcpTimeoutMs !== undefined && { mcpTimeoutMs: options.mcpTimeoutMs }),
    subagents: options.subagents,
    fork: options.fork,
    ...(options.maxLineBytes !== undefined && { maxLineBytes: options.maxLineBytes }),
    agentInfo: { name: 'dsh-acp', title: 'dsh-acp', version },
    ...(options.fakeClock !== undefined && { clock: () => options.fakeClock as number }),
    ...(options.idPrefix !== undefined && { idGenerator: createSequentialIdGenerator(options.idPrefix) }),
  })
  const recorder = options.transcript !== undefined ? new TranscriptRecorder(options.transcript) : undefined
  const connection = app.ctx.acp.serve(process.stdin, process.stdout, {
    ...(recorder && {
      onWireLine: (direction: 'in' | 'out', line: string) =>
        recorder.record(direction, redactMcpSecrets(line)),
    }),
  })
  const logger = app.ctx.logger('dsh-acp')
  app.ctx.on('session/disposed', releaseMemoryOnClose())
  let stopping = false
  const shutdown = async (why: string, cancelTurns: boolean) => {
    if (stopping) return
    stopping = true
    logger.info(`shutting down: ${why}`)
    if (cancelTurns) await Promise.all(app.ctx.sessions.liveSessions().map((s) => app.ctx.agent.cancel(s.id)))
    await connection.settle()
    try {
      await app.ctx.sessions.closeAll()
    } catch (error) {
      logger.error(`some sessions could not be flushed: ${(error as Error).message}`)
      process.exitCode = 1
    }
    await connection.drain()
    connection.dispose()
    await app.ctx.stop()
    await recorder?.close()
    process.stdin.destroy()
  }
  // SIGHUP: the editor closed its terminal. Every one ends like SIGTERM: turns cancelled and recorded.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => void shutdown(signal, true))
  }
  const reason = await Promise.race([
    connection.closed.then(() => 'stdin closed'),
    connection.outputClosed.then(() => 'stdout closed'),
  ])
  await shutdown(reason, reason === 'stdout closed')
}

async function main(): Promise<void> {
  if (process.argv[2] === 'record' || process.argv[2] === 'replay') {
    const { runToolCommand } = await import('./replay/cli.js')
    process.exitCode = await runToolCommand(process.argv.slice(2))
    return
  }
  let options: CliOptions
  try {
    options = parseCli(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`dsh-acp: ${(error as Error).message}\n\n${USAGE}`)
    process.exitCode = 2
    return
  }
  if (options.command === 'help') {
    printToTerminal(USAGE)
    return
  }
  if (options.command === 'version') {
    printToTerminal(version)
    return
  }
  routeLogsToStderr(LOG_LEVELS[options.logLevel])
  if (options.command === 'sessions') {
    // Subcommands load their code only when run: starting the server must not pay for them.
    const { printLineage } = await import('./sessions-command.js')
    await printLineage(options.storeDir ?? resolveStoreDir(process.env), printToTerminal)
    return
  }
  await serve(options)
}

main().catch((error: unknown) => {
  process.stderr.write(`dsh-acp: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
