import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { expect } from 'vitest'
import { AgentProcess } from './agent-process.js'
import { type FakeOpenAi, runningFakeOpenAi } from './fake-openai.js'
import {
  type NormalizeContext,
  normalizeSnapshotText,
  normalizeTranscript,
  SNAPSHOT_WORK_PREFIX,
} from './snapshot-normalize.js'
import { CONFIG_HOME, MODEL_SERVER, PROJECT_NODE_MODULES, type ReplaySpec } from './snapshot-spec.js'

/** Where scenario folders live: `<root>/<scenario>/transcript.jsonl` and `<root>/<scenario>/store/`. */
export const SNAPSHOT_ROOT = resolve(import.meta.dirname, '../snapshots')
/**
 * The cwd of every scenario's sessions, relative to the scenario's work directory: a real
 * directory, created with the work directory, that appears as `<work>/project` in the snapshots
 * (the server refuses a cwd that does not exist). Scenario bodies take it from `agent.cwd`.
 */
export const SNAPSHOT_PROJECT = 'project'
/** The instant every scenario's server stamps on everything. */
export const SNAPSHOT_CLOCK = '2026-01-01T00:00:00.000Z'

export interface StartOptions {
  /** `--id-prefix`; default `ses_`. A second process in one scenario needs another one. */
  readonly idPrefix?: string
  readonly args?: readonly string[]
  /** Client-side handlers (permission, fs) registered before connecting. */
  readonly setupClient?: (app: acp.ClientApp) => void
}

/** What a scenario body gets: servers on one store, recording into one transcript. */
export interface Scenario {
  readonly context: NormalizeContext
  /** Spawns the built server on the scenario's store with the fake clock, ids and transcript. */
  start(options?: StartOptions): AgentProcess
  /** Writes a `script:` model file into the work directory; returns the `--model` value. */
  scriptModel(name: string, turns: unknown): string
  /** Makes an empty directory in the work directory (recorded in `replay.json`); returns its path. */
  directory(name: string): string
  /**
   * Writes a script into the work directory (recorded in `replay.json`), which links the project's
   * `node_modules` so the script can import its packages; returns its path.
   */
  script(name: string, text: string): string
  /**
   * Writes the user configuration file `config.json` (recorded in `replay.json`); every process
   * started after it runs with that configuration home. Returns the file's path.
   */
  userConfig(value: unknown): string
}

/** What a scenario produced, normalized: the transcript and the store's session files by name. */
export interface ScenarioOutput {
  readonly transcript: string
  readonly storeFiles: ReadonlyMap<string, string>
  /** Schema violations on the live wire, exit codes other than 0, unterminated output. */
  readonly problems: readonly string[]
  /** `replay.json`: how to start the server again to replay the transcript (see `ReplaySpec`). */
  readonly replaySpec: string
}

/**
 * Runs a scenario body against real server processes. Every process appends to the same
 * `--transcript` file, so a restart scenario has one transcript, in process order. Processes the
 * body leaves running are stopped with EOF (a clean exit) before the files are read.
 */
export async function runScenario(body: (scenario: Scenario) => Promise<void>): Promise<ScenarioOutput> {
  const workDir = mkdtempSync(join(tmpdir(), SNAPSHOT_WORK_PREFIX))
  const storeDir = join(workDir, 'store')
  const transcriptFile = join(workDir, 'transcript.jsonl')
  const cwd = join(workDir, SNAPSHOT_PROJECT)
  mkdirSync(cwd)
  const context: NormalizeContext = { storeDir, workDir }
  const agents: AgentProcess[] = []
  const problems: string[] = []
  const processes: { idPrefix: string; args: string[] }[] = []
  const files: Record<string, string> = {}
  const directories: string[] = []
  let nodeModules = false
  let modelServer: FakeOpenAi | undefined
  let configHome = false
  const scenario: Scenario = {
    context,
    start(options = {}) {
      const args = (options.args ?? []).map((arg) => {
        const fake = runningFakeOpenAi(arg)
        if (!fake) return arg.replaceAll(workDir, '<work>')
        if (modelServer && modelServer !== fake)
          throw new Error('a snapshot scenario can use one fake model server')
        modelServer = fake
        return MODEL_SERVER
      })
      processes.push({ idPrefix: options.idPrefix ?? 'ses_', args })
      const agent = new AgentProcess({
        storeDir,
        cwd,
        args: [
          ...['--fake-clock', SNAPSHOT_CLOCK, '--id-prefix', options.idPrefix ?? 'ses_'],
          ...['--transcript', transcriptFile, '--log-level', 'error'],
          ...(options.args ?? []),
        ],
        ...(options.setupClient && { setupClient: options.setupClient }),
        ...(configHome && { env: { XDG_CONFIG_HOME: join(workDir, CONFIG_HOME) } }),
      })
      agents.push(agent)
      return agent
    },
    scriptModel(name, turns) {
      const file = join(workDir, name)
      files[name] = JSON.stringify({ turns })
      writeFileSync(file, files[name])
      return `script:${file}`
    },
    directory(name) {
      const dir = join(workDir, name)
      mkdirSync(dir)
      directories.push(name)
      return dir
    },
    userConfig(value) {
      const name = `${CONFIG_HOME}/dsh-acp/config.json`
      mkdirSync(join(workDir, CONFIG_HOME, 'dsh-acp'), { recursive: true })
      files[name] = `${JSON.stringify(value, null, 2)}\n`
      writeFileSync(join(workDir, name), files[name])
      configHome = true
      return join(workDir, name)
    },
    script(name, text) {
      if (!nodeModules) symlinkSync(PROJECT_NODE_MODULES, join(workDir, 'node_modules'), 'dir')
      nodeModules = true
      const file = join(workDir, name)
      files[name] = text
      writeFileSync(file, text)
      return file
    },
  }
  try {
    await body(scenario)
    for (const [index, agent] of agents.entries()) {
      if (agent.child.exitCode === null) {
        const code = await agent.stop()
        if (code !== 0) problems.push(`process ${index} exited with ${code}: ${agent.stderr}`)
      }
      if (agent.unterminatedOutput() !== '') problems.push(`process ${index} left an unterminated line`)
      problems.push(...agent.audit.problems)
    }
    const transcript = normalizeTranscript(readFileSync(transcriptFile, 'utf8'), context)
    const storeFiles = new Map<string, string>()
    if (existsSync(storeDir)) {
      for (const name of readdirSync(storeDir)
        .filter((n) => n.endsWith('.jsonl'))
        .sort()) {
        storeFiles.set(name, normalizeSnapshotText(readFileSync(join(storeDir, name), 'utf8'), context))
      }
    }
    const spec: ReplaySpec = {
      processes,
      files,
      ...(directories.length > 0 && { directories }),
      ...(nodeModules ? { nodeModules } : {}),
      ...(modelServer && { modelServer: modelServer.requests.map((request) => request.reply) }),
      ...(configHome ? { configHome } : {}),
    }
    return { transcript, storeFiles, problems, replaySpec: `${JSON.stringify(spec, null, 2)}\n` }
  } finally {
    for (const agent of agents) if (agent.child.exitCode === null) await agent.kill()
    rmSync(workDir, { recursive: true, force: true })
  }
}

/**
 * Compares a scenario's output with `test/snapshots/<name>/` (the transcript, `replay.json` and
 * the store files) through `toMatchFileSnapshot` (so
 * `vitest -u` rewrites the files and CI, which never writes snapshots, fails on any difference or
 * missing file), and fails on stored session files the scenario no longer produces.
 */
export async function expectScenarioSnapshot(name: string, output: ScenarioOutput): Promise<void> {
  expect(output.problems).toEqual([])
  const dir = join(SNAPSHOT_ROOT, name)
  await expect(output.transcript).toMatchFileSnapshot(join(dir, 'transcript.jsonl'))
  await expect(output.replaySpec).toMatchFileSnapshot(join(dir, 'replay.json'))
  for (const [file, text] of output.storeFiles) {
    await expect(text).toMatchFileSnapshot(join(dir, 'store', file))
  }
  const storeSnapshotDir = join(dir, 'store')
  const stored = existsSync(storeSnapshotDir) ? readdirSync(storeSnapshotDir) : []
  const stale = stored.filter((file) => !output.storeFiles.has(file))
  expect(stale, `stale files in ${storeSnapshotDir}: delete them`).toEqual([])
}

/** Resolves once the agent has sent an update for which `matches` holds. */
export async function waitForUpdate(
  agent: AgentProcess,
  matches: (notification: acp.SessionNotification) => boolean,
): Promise<acp.SessionNotification> {
  for (;;) {
    const found = agent.updates.find(matches)
    if (found) return found
    if (agent.child.exitCode !== null) throw new Error(`the agent exited: ${agent.stderr}`)
    await new Promise((done) => setTimeout(done, 5))
  }
}
