import { type ChildProcess, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { Readable, Writable } from 'node:stream'
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client'
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { WebSocket } from 'ws'

/**
 * The SDK's own clients for the remote bench, as an editor runs them: `ClientSideConnection`
 * over `ndJsonStream` on a child's stdio, over `createHttpStream` (fetch: POST + SSE) and over
 * `createWebSocketStream`. What they add over the bench's lean clients is the SDK client's cost.
 */
export interface SdkClient {
  readonly agent: acp.ClientContext
  close(): void
}

function connect(stream: acp.Stream): SdkClient {
  const app = acp.client({ name: 'dsh-acp-bench' })
  app.onNotification('session/update', () => {})
  const connection = app.connect(stream)
  return { agent: connection.agent, close: () => connection.close() }
}

/** The SDK client over `url` (`http://…/acp` or `ws://…/acp`), initialized. */
export async function sdkRemoteClient(url: string, token: string): Promise<SdkClient> {
  const headers = { Authorization: `Bearer ${token}` }
  const stream = url.startsWith('ws')
    ? createWebSocketStream(url, { WebSocket, headers })
    : createHttpStream(url, { headers })
  const client = connect(stream)
  await client.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
  return client
}

/** The SDK client on a spawned stdio agent, initialized; `pid` is the agent's. */
export async function sdkStdioClient(
  args: readonly string[],
): Promise<SdkClient & { pid: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [...args], { stdio: ['pipe', 'pipe', 'ignore'] })
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  )
  const client = connect(stream)
  await client.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
  return { ...client, pid: child.pid as number, child }
}

/** CPU time process `pid` has used so far, in µs (Linux: user + system, from /proc). */
export async function cpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}
