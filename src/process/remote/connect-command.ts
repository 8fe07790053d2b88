import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client'
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client'
import { WebSocket } from 'ws'
import { LineSplitter } from '../../jsonrpc/index.js'
import { defaultTokenFile } from './serve-remote.js'

type Message = Record<string, unknown>

const CONNECT_USAGE = `Usage: dsh-acp connect URL [--token TOKEN]
  Bridge this command's stdin/stdout to the dsh-acp serving at URL (http(s)://HOST:PORT/acp over
  Streamable HTTP, ws(s)://HOST:PORT/acp over WebSocket; docs/remote.md). The token: --token,
  else DSH_ACP_TOKEN, else this machine's token file.
`

/**
 * `dsh-acp connect URL`: an editor that only starts processes talks ACP on this command's stdio,
 * and every message goes to the dsh-acp serving at URL (http(s):// over Streamable HTTP, ws(s)://
 * over WebSocket) through the SDK's own transport clients. The token: `--token`, else
 * `DSH_ACP_TOKEN`, else this machine's token file. Exits 0 when stdin ends, 1 when the remote
 * connection fails.
 */
export async function runConnect(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { token: { type: 'string' }, help: { type: 'boolean' } },
  })
  const url = positionals[0]
  if (values.help || url === undefined || positionals.length > 1) {
    process.stderr.write(CONNECT_USAGE)
    return values.help ? 0 : 2
  }
  const token = values.token ?? process.env.DSH_ACP_TOKEN ?? localToken()
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {}
  const stream = /^wss?:/i.test(url)
    ? createWebSocketStream(url, { WebSocket, headers })
    : createHttpStream(url, { headers })
  const writer = stream.writable.getWriter()
  const toRemote = forwardInput(writer)
  try {
    for await (const message of stream.readable) process.stdout.write(`${JSON.stringify(message)}\n`)
  } catch (error) {
    process.stderr.write(`dsh-acp connect: ${(error as Error).message}\n`)
    process.stdin.destroy()
    return 1
  }
  await toRemote
  return 0
}

/** Stdin's lines to the remote, one message each; a line that is not JSON is answered -32700 here. */
function forwardInput(writer: WritableStreamDefaultWriter<Message>): Promise<void> {
  let chain: Promise<void> = Promise.resolve()
  const splitter = new LineSplitter({
    line(text) {
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        const error = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
        process.stdout.write(`${JSON.stringify(error)}\n`)
        return
      }
      if (typeof message === 'object' && message !== null && !Array.isArray(message))
        chain = chain.then(() => writer.write(message as Message)).catch(() => undefined)
    },
    overflow() {},
  })
  process.stdin.on('data', (chunk: Buffer) => splitter.push(chunk))
  return new Promise((resolve) => {
    process.stdin.once('end', () => {
      void chain.then(() => writer.close().catch(() => undefined)).then(resolve)
    })
  })
}

function localToken(): string | undefined {
  try {
    return readFileSync(defaultTokenFile(), 'utf8').trim()
  } catch {
    return undefined
  }
}
