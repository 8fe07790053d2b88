import { parseArgs } from 'node:util'
import { DEFAULT_LIMITS, type RemoteLimits } from '../../remote/limits.js'

/** `dsh-acp serve --listen ...`: where and how to serve ACP on the network (docs/remote.md). */
export interface RemoteOptions {
  /** Absent: `--rotate-token` alone (make a new token, print it, exit). */
  readonly listen?: { readonly host: string; readonly port: number }
  readonly tls?: { readonly cert: string; readonly key: string }
  readonly behindTlsProxy: boolean
  readonly allowedOrigins: readonly string[]
  readonly rotateToken: boolean
  /** Where the bearer token is kept; default `<config dir>/serve-token`. */
  readonly tokenFile?: string
  readonly limits: RemoteLimits
}

const INTEGER_FLAGS = {
  'max-connections': 'maxConnections',
  'max-message-bytes': 'maxMessageBytes',
  'max-buffered-bytes': 'maxBufferedBytes',
  'max-output-stall-ms': 'maxOutputStallMs',
  'keepalive-ms': 'keepaliveMs',
  'headers-timeout-ms': 'headersTimeoutMs',
} as const
const RETENTION_FLAGS = { 'retention-messages': 'messages', 'retention-seconds': 'seconds' } as const

const string = { type: 'string' } as const
const OPTIONS = {
  listen: string,
  'tls-cert': string,
  'tls-key': string,
  'behind-tls-proxy': { type: 'boolean' },
  'allow-origin': { type: 'string', multiple: true },
  'rotate-token': { type: 'boolean' },
  'token-file': string,
  ...Object.fromEntries(Object.keys({ ...INTEGER_FLAGS, ...RETENTION_FLAGS }).map((name) => [name, string])),
} as const

/** The remote flags' help lines, for `serve --help`. */
export const REMOTE_USAGE = `Serving on the network (docs/remote.md):
  dsh-acp serve --listen [HOST:]PORT   ACP over HTTP (POST + SSE) and WebSocket on HOST (127.0.0.1)
    --tls-cert FILE --tls-key FILE     serve HTTPS/WSS (required off loopback...)
    --behind-tls-proxy                 ...unless a TLS proxy in front terminates it
    --allow-origin ORIGIN              a web page origin allowed to call (repeatable; default none)
    --rotate-token                     make a new bearer token (alone: print it and exit)
    --token-file FILE                  where the token is kept (default ~/.config/dsh-acp/serve-token)
    --max-connections N --max-message-bytes N --max-buffered-bytes N --max-output-stall-ms N
    --keepalive-ms N --headers-timeout-ms N --retention-messages N --retention-seconds N
  dsh-acp connect URL [--token T]      bridge stdio to a remote dsh-acp (token: DSH_ACP_TOKEN too)
`

/**
 * Takes the remote flags out of `argv`: the rest goes to the usual parser, and `options` is
 * undefined when none was given (stdio, as always). Throws a TypeError for the user on bad input.
 */
export function takeRemoteArguments(argv: readonly string[]): {
  rest: string[]
  options?: RemoteOptions
} {
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, tokens: true })
  const mine = new Set<number>()
  const values: Record<string, string | boolean | string[]> = {}
  for (const token of tokens) {
    if (token.kind !== 'option' || !(token.name in OPTIONS)) continue
    mine.add(token.index)
    if (token.inlineValue === false && token.value !== undefined) mine.add(token.index + 1)
    const value = token.value ?? true
    if (token.name === 'allow-origin')
      values[token.name] = [...((values[token.name] as string[]) ?? []), String(value)]
    else values[token.name] = value
  }
  const rest = argv.filter((_, index) => !mine.has(index))
  if (mine.size === 0) return { rest }
  return { rest, options: remoteOptions(values) }
}

function remoteOptions(values: Record<string, string | boolean | string[]>): RemoteOptions {
  const text = (name: string) => {
    const value = values[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string') throw new TypeError(`--${name} needs a value`)
    return value
  }
  const listen = text('listen')
  const cert = text('tls-cert')
  const key = text('tls-key')
  if ((cert === undefined) !== (key === undefined))
    throw new TypeError('--tls-cert and --tls-key go together')
  if (listen === undefined && values['rotate-token'] !== true)
    throw new TypeError('the remote options need --listen [HOST:]PORT')
  const tokenFile = text('token-file')
  return {
    ...(listen !== undefined && { listen: hostAndPort(listen) }),
    ...(cert !== undefined && key !== undefined && { tls: { cert, key } }),
    behindTlsProxy: values['behind-tls-proxy'] === true,
    allowedOrigins: (values['allow-origin'] as string[] | undefined) ?? [],
    rotateToken: values['rotate-token'] === true,
    ...(tokenFile !== undefined && { tokenFile }),
    limits: limitsOf(text),
  }
}

function limitsOf(text: (name: string) => string | undefined): RemoteLimits {
  const integer = (name: keyof typeof INTEGER_FLAGS | keyof typeof RETENTION_FLAGS, fallback: number) => {
    const raw = text(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`--${name} must be a positive integer`)
    return value
  }
  const d = DEFAULT_LIMITS
  return {
    maxConnections: integer('max-connections', d.maxConnections),
    maxMessageBytes: integer('max-message-bytes', d.maxMessageBytes),
    maxBufferedBytes: integer('max-buffered-bytes', d.maxBufferedBytes),
    maxOutputStallMs: integer('max-output-stall-ms', d.maxOutputStallMs),
    keepaliveMs: integer('keepalive-ms', d.keepaliveMs),
    headersTimeoutMs: integer('headers-timeout-ms', d.headersTimeoutMs),
    retention: {
      ...d.retention,
      messages: integer('retention-messages', d.retention.messages),
      seconds: integer('retention-seconds', d.retention.seconds),
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
