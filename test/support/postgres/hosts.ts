import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { AgentProcess } from '../agent-process.js'
import { type RemoteClient, RemoteServer } from '../remote-server.js'
import { sharedPostgres } from './test-database.js'

// Built `dsh-acp` hosts on one PostgreSQL database, for e2e tests: stdio processes and `serve`
// processes, their scripted models, and what every test of several hosts waits for.

/** A stdio host's client: its name (`clientInfo`), and how it answers permission requests. */
export interface StdioHostOptions {
  readonly script?: string
  readonly name?: string
  /** The directory its sessions are opened in (`AgentOptions.cwd`). */
  readonly cwd?: string
  readonly answer?: (
    params: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ) => Promise<acp.RequestPermissionResponse>
}

export interface PostgresHosts {
  /** Writes a script model (`--model script:<path>`) and returns its path. */
  script(name: string, script: unknown): string
  /** A `dsh-acp` process over stdio on the database, initialized. */
  stdio(url: string, options?: StdioHostOptions): Promise<AgentProcess>
  /** A `dsh-acp serve` process on the database. */
  serve(url: string, script: string): Promise<RemoteServer>
  /** A client of a `serve` host, initialized. */
  connect(server: RemoteServer, kind: 'http' | 'ws'): Promise<RemoteClient>
}

/**
 * Hosts for the tests of one file: the run's PostgreSQL server is made ready before them, and
 * after each test every client is closed and every host stopped (their stderr printed when the
 * test failed); the script models go after the file.
 */
export function postgresHosts(prefix: string): PostgresHosts {
  const scripts = mkdtempSync(join(tmpdir(), prefix))
  const agents: AgentProcess[] = []
  const servers: RemoteServer[] = []
  const clients: RemoteClient[] = []
  beforeAll(() => sharedPostgres(), 120_000)
  afterEach(async (t) => {
    if (t.task.result?.state === 'fail') {
      for (const host of [...agents, ...servers]) console.error(host.stderr)
    }
    for (const client of clients.splice(0)) client.close()
    for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
    for (const server of servers.splice(0)) await server.stop()
  })
  afterAll(() => rmSync(scripts, { recursive: true, force: true }))
  return {
    script(name, script) {
      const path = join(scripts, `${name}.json`)
      writeFileSync(path, JSON.stringify(script))
      return path
    },
    async stdio(url, options = {}) {
      const { answer } = options
      const agent = new AgentProcess({
        storeDir: url,
        ...(options.cwd !== undefined && { cwd: options.cwd }),
        args: options.script ? ['--model', `script:${options.script}`] : [],
        ...(answer && {
          setupClient: (app: acp.ClientApp) =>
            app.onRequest('session/request_permission', ({ params, signal }) => answer(params, signal)),
        }),
      })
      agents.push(agent)
      await agent.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
        clientInfo: { name: options.name ?? 'dsh-acp-tests', version: '1' },
      })
      return agent
    },
    async serve(url, script) {
      const server = await RemoteServer.start(['--store', url, '--model', `script:${script}`])
      servers.push(server)
      return server
    },
    async connect(server, kind) {
      const client = server.client(kind)
      clients.push(client)
      await client.initialize()
      return client
    },
  }
}
