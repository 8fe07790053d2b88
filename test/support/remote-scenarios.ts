import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { expect } from 'vitest'
import { AgentProcess } from './agent-process.js'
import { type Driver, RemoteServer, type TransportKind } from './remote-server.js'
import { normalizeTranscript, SNAPSHOT_WORK_PREFIX } from './snapshot-normalize.js'
import { SNAPSHOT_CLOCK } from './snapshot-scenario.js'

/** One scenario, run the same way over any transport. */
export interface RemoteScenario {
  /** `--model` turns of a `script:` model; absent: the echo model. */
  readonly script?: unknown
  readonly clientCapabilities?: acp.ClientCapabilities
  readonly setupClient?: (app: acp.ClientApp) => void
  readonly body: (driver: Driver) => Promise<void>
}

/**
 * Runs `scenario` over stdio (the built server spawned by the official client) or over
 * `serve --listen` with the SDK's HTTP or WebSocket client, with the fake clock and ids, and
 * returns its `--transcript`, normalized like the snapshots (so two transports compare equal).
 */
export async function transcriptOver(transport: 'stdio' | TransportKind, scenario: RemoteScenario) {
  const workDir = mkdtempSync(join(tmpdir(), SNAPSHOT_WORK_PREFIX))
  const storeDir = join(workDir, 'store')
  const transcript = join(workDir, 'transcript.jsonl')
  const cwd = join(workDir, 'project')
  mkdirSync(cwd)
  const args = ['--fake-clock', SNAPSHOT_CLOCK, '--id-prefix', 'ses_', '--transcript', transcript]
  args.push('--log-level', 'error')
  if (scenario.script !== undefined) {
    writeFileSync(join(workDir, 'model.json'), JSON.stringify({ turns: scenario.script }))
    args.push('--model', `script:${join(workDir, 'model.json')}`)
  }
  try {
    if (transport === 'stdio') {
      const agent = new AgentProcess({
        storeDir,
        cwd,
        args,
        ...(scenario.setupClient && { setupClient: scenario.setupClient }),
      })
      await scenario.body(agent)
      expect(await agent.stop()).toBe(0)
      expect(agent.audit.problems).toEqual([])
    } else {
      const server = await RemoteServer.start(['--store', storeDir, ...args])
      const client = server.client(transport, {
        cwd,
        ...(scenario.setupClient && { setupClient: scenario.setupClient }),
      })
      try {
        await scenario.body(client)
      } finally {
        client.close()
        expect(await server.stop()).toBe(0)
      }
    }
    return normalizeTranscript(readFileSync(transcript, 'utf8'), { storeDir, workDir })
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t })

async function prompt(driver: Driver, sessionId: string, message: string) {
  return driver.agent.request('session/prompt', { sessionId, prompt: [text(message)] })
}

async function newSession(driver: Driver): Promise<string> {
  return (await driver.agent.request('session/new', { cwd: driver.cwd, mcpServers: [] })).sessionId
}

/** Resolves once an update for which `matches` holds has arrived. */
export async function updateArrived(driver: Driver, matches: (n: acp.SessionNotification) => boolean) {
  while (!driver.updates.some(matches)) await new Promise((done) => setTimeout(done, 5))
}

/** The fork story: two turns, a fork, a turn in the child, the child loaded. */
export const FORK_STORY: RemoteScenario = {
  async body(driver) {
    await driver.initialize()
    const parent = await newSession(driver)
    await prompt(driver, parent, 'first')
    await prompt(driver, parent, 'second')
    const child = await driver.agent.request('session/fork', {
      sessionId: parent,
      cwd: driver.cwd,
      mcpServers: [],
    })
    await prompt(driver, child.sessionId, 'third')
    await driver.agent.request('session/load', {
      sessionId: child.sessionId,
      cwd: driver.cwd,
      mcpServers: [],
    })
    const said = driver.updates
      .filter((n) => n.sessionId === child.sessionId && n.update.sessionUpdate === 'agent_message_chunk')
      .map((n) => JSON.stringify(n.update))
      .join('')
    expect(said).toContain('I remember 3 messages')
  },
}

/** A turn whose edit asks the client's permission (allowed once) and goes through the editor's fs. */
export const PERMISSION_TURN: RemoteScenario = {
  script: [
    [
      [
        {
          toolCall: {
            name: 'edit_text_file',
            input: {
              path: 'app.ts',
              edits: [{ oldText: 'const answer = 41', newText: 'const answer = 42' }],
            },
          },
        },
      ],
      [{ text: 'Fixed the answer.' }],
    ],
  ],
  setupClient(app) {
    app.onRequest('session/request_permission', () => ({
      outcome: { outcome: 'selected', optionId: 'allow_once' },
    }))
    app.onRequest('fs/read_text_file', () => ({ content: 'const answer = 41\n' }))
    app.onRequest('fs/write_text_file', () => ({}))
  },
  async body(driver) {
    await driver.initialize({ fs: { readTextFile: true, writeTextFile: true } })
    const sessionId = await newSession(driver)
    expect((await prompt(driver, sessionId, 'fix app.ts')).stopReason).toBe('end_turn')
    const kinds = driver.updates.map((n) => n.update.sessionUpdate)
    expect(kinds).toEqual(expect.arrayContaining(['tool_call', 'tool_call_update']))
  },
}

/** A slow turn cancelled once its first words arrived. */
export const CANCELLED_TURN: RemoteScenario = {
  script: [[[{ text: 'starting' }, { delayMs: 600_000 }, { text: 'never said' }]]],
  async body(driver) {
    await driver.initialize()
    const sessionId = await newSession(driver)
    const answer = prompt(driver, sessionId, 'take your time')
    await updateArrived(driver, (n) => n.update.sessionUpdate === 'agent_message_chunk')
    await driver.agent.notify('session/cancel', { sessionId })
    expect((await answer).stopReason).toBe('cancelled')
  },
}
