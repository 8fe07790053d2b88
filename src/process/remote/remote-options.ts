import { DEFAULT_LIMITS, type RemoteLimits } from '../../remote/limits.js'
import { integerOption } from '../cli/parse-options.js'
import type { CliOptions } from '../config-schema.js'
import { REMOTE_OPTION_ROWS } from './remote-option-rows.js'

/** `dsh-acp serve --listen ...`: where and how to serve ACP on the network (docs/remote.md). */
export type RemoteOptions = NonNullable<CliOptions['remote']>

type RemoteRow = (typeof REMOTE_OPTION_ROWS)[number]

/** The remote options' values as the one options table's parser reads them. */
type RemoteValues = {
  readonly [R in RemoteRow as R['name']]?: R extends { type: 'boolean' }
    ? boolean
    : R extends { multiple: true }
      ? readonly string[]
      : string
}

/**
 * The configuration's `remote` property from the command line: undefined when no remote option
 * was given (stdio, as always). Throws a TypeError for the user on bad input.
 */
export function remoteOptions(values: RemoteValues): RemoteOptions | undefined {
  const given = REMOTE_OPTION_ROWS.some(({ name }) => values[name] !== undefined && values[name] !== false)
  if (!given) return undefined
  const limits = limitsOf(values)
  const { listen, 'tls-cert': cert, 'tls-key': key, 'token-file': tokenFile } = values
  if ((cert === undefined) !== (key === undefined))
    throw new TypeError('--tls-cert and --tls-key go together')
  if (listen === undefined && values['rotate-token'] !== true)
    throw new TypeError('the remote options need --listen [HOST:]PORT')
  return {
    ...(listen !== undefined && { listen: hostAndPort(listen) }),
    ...(cert !== undefined && key !== undefined && { tls: { cert, key } }),
    behindTlsProxy: values['behind-tls-proxy'] === true,
    allowedOrigins: [...(values['allow-origin'] ?? [])],
    rotateToken: values['rotate-token'] === true,
    ...(tokenFile !== undefined && { tokenFile }),
    limits,
  }
}

function limitsOf(values: RemoteValues): RemoteLimits {
  const d = DEFAULT_LIMITS
  return {
    maxConnections: integerOption(values, 'max-connections') ?? d.maxConnections,
    maxSockets: integerOption(values, 'max-sockets') ?? d.maxSockets,
    maxMessageBytes: integerOption(values, 'max-message-bytes') ?? d.maxMessageBytes,
    maxBufferedBytes: integerOption(values, 'max-buffered-bytes') ?? d.maxBufferedBytes,
    maxOutputStallMs: integerOption(values, 'max-output-stall-ms') ?? d.maxOutputStallMs,
    keepaliveMs: integerOption(values, 'keepalive-ms') ?? d.keepaliveMs,
    headersTimeoutMs: integerOption(values, 'headers-timeout-ms') ?? d.headersTimeoutMs,
    retention: {
      ...d.retention,
      messages: integerOption(values, 'retention-messages') ?? d.retention.messages,
      seconds: integerOption(values, 'retention-seconds') ?? d.retention.seconds,
    },
  }
}

/** `HOST:PORT`, `[::1]:PORT` or `PORT` (on 127.0.0.1). Port 0: the system picks one. */
export function hostAndPort(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+))?:?(\d{1,5})$/.exec(text)
  const port = Number(match?.[3])
  if (!match || port > 65535) throw new TypeError(`--listen must be [HOST:]PORT, got ${JSON.stringify(text)}`)
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port }
}
