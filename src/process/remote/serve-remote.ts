import { join } from 'node:path'
import { isLoopback, type Listening, listen } from '../../remote/listen.js'
import { serverToken } from '../../remote/token.js'
import type { CliOptions } from '../cli-args.js'
import { configDir } from '../config/paths.js'
import { type AppStart, buildServer } from '../serve.js'
import type { RemoteOptions } from './remote-options.js'

/** Where the bearer token is kept unless `--token-file` says. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'serve-token')
}

const say = (text: string) => process.stderr.write(`dsh-acp: ${text}\n`)

/**
 * `dsh-acp serve --listen`: one long-lived process serving ACP over HTTP and WebSocket, every
 * connection on the same store and agent. Runs until SIGTERM, SIGINT or SIGHUP; then cancels the
 * running turns, settles and ends every connection (their streams get what was answered), flushes
 * every session and stops. `--rotate-token` without `--listen` only makes a new token.
 */
export async function serveRemote(
  options: CliOptions,
  remote: RemoteOptions,
  start: AppStart,
): Promise<void> {
  const tokenFile = remote.tokenFile ?? defaultTokenFile()
  const listenOn = remote.listen
  if (!listenOn) {
    serverToken(tokenFile, true, say)
    say(`a new bearer token is in ${tokenFile}; restart dsh-acp serve for it to take effect`)
    return
  }
  if (!isLoopback(listenOn.host) && !remote.tls && !remote.behindTlsProxy)
    throw new Error(
      `refusing to listen on ${listenOn.host} without TLS: the token would cross the network in clear. ` +
        'Give --tls-cert and --tls-key, or --behind-tls-proxy when a TLS proxy in front terminates it.',
    )
  const token = serverToken(tokenFile, remote.rotateToken, say)
  const { app, logger, recorder } = await buildServer(options, start)
  const log = app.ctx.logger('remote')
  app.ctx.on('session/created', (session) => log.info(`session ${session.id} created`))
  app.ctx.on('session/loaded', (session) => log.info(`session ${session.id} loaded`))
  app.ctx.on('session/disposed', (session, reason) => log.info(`session ${session.id} closed (${reason})`))
  const listening = await listen(
    (input, output) => app.ctx.acp.serve(input, output, recorder ? { onWireLine: recorder.tap } : {}),
    {
      host: listenOn.host,
      port: listenOn.port,
      gate: { token, allowedOrigins: remote.allowedOrigins },
      limits: remote.limits,
      ...(remote.tls && { tls: remote.tls }),
      log: (message) => log.info(message),
    },
  )
  announce(listening, tokenFile, token)
  let stopping: Promise<void> | undefined
  const shutdown = (why: string) => {
    stopping ??= (async () => {
      logger.info(`shutting down: ${why}`)
      await app.ctx.agent.cancelAll()
      await listening.close()
      try {
        await app.ctx.sessions.closeAll()
      } catch (error) {
        logger.error(`some sessions could not be flushed: ${(error as Error).message}`)
        process.exitCode = 1
      }
      await app.ctx.stop()
      await recorder?.close()
    })()
    return stopping
  }
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => void shutdown(signal).then(resolve))
  })
}

/** Where the server listens, the token and how to connect, on stderr (stdout stays unused). */
function announce(listening: Listening, tokenFile: string, token: string): void {
  const { address, port } = listening.address
  const host = address.includes(':') ? `[${address}]` : address
  const http = `${listening.secure ? 'https' : 'http'}://${host}:${port}/acp`
  const ws = `${listening.secure ? 'wss' : 'ws'}://${host}:${port}/acp`
  say(`serving ACP on ${http} (WebSocket: ${ws}; health: GET /healthz)`)
  say(`bearer token (kept in ${tokenFile}, mode 0600): ${token}`)
  say(`connect a stdio-only editor with: DSH_ACP_TOKEN=$(cat ${tokenFile}) dsh-acp connect ${http}`)
}
