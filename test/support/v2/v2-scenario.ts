import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect } from 'vitest'
import { type NormalizeContext, normalizeSnapshotText, SNAPSHOT_WORK_PREFIX } from '../snapshot-normalize.js'
import { SNAPSHOT_CLOCK, SNAPSHOT_PROJECT } from '../snapshot-scenario.js'
import type { ReplaySpec } from '../snapshot-spec.js'
import { type V2AgentOptions, V2AgentProcess } from './v2-agent-process.js'

/** Where the v2 scenarios live, beside the v1 ones: `<root>/<scenario>/transcript.jsonl`, `store/`. */
export const V2_SNAPSHOT_ROOT = resolve(import.meta.dirname, '../../snapshots-v2')

export interface V2Scenario {
  /** The sessions' cwd (`<work>/project`). */
  readonly cwd: string
  /** Writes a `script:` model file into the work directory; returns the `--model` value. */
  scriptModel(turns: unknown): string
  /** Writes a file into the project (recorded in `replay.json`); returns its path. */
  projectFile(name: string, text: string): string
  /** Spawns the built server on the scenario's store, with the fake clock, ids and transcript. */
  start(options: V2AgentOptions): V2AgentProcess
}

export interface V2ScenarioOutput {
  readonly transcript: string
  readonly storeFiles: ReadonlyMap<string, string>
  /** v2 schema violations on the wire, exit codes other than 0. */
  readonly problems: readonly string[]
  /** `replay.json`: how to start the server again to replay the transcript (see `ReplaySpec`). */
  readonly replaySpec: string
}

/**
 * What differs from one machine to another, for a test that proves a scenario's snapshot does not
 * depend on it; never recorded in `replay.json`.
 */
export interface V2Machine {
  /** Added to every process's environment (e.g. a `PATH` without bubblewrap). */
  readonly env?: Readonly<Record<string, string>>
}

/** The model script's name in the work directory (one per scenario). */
const MODEL_FILE = 'model.json'

/**
 * Runs a v2 scenario against the built server, driven by the SDK's v2 client, recording one
 * `--transcript`; the transcript and store files are normalized as the v1 snapshots are (the
 * temp directories as `<store>` and `<work>`), and `initialize`'s `info.version` is `<version>`.
 */
export async function runV2Scenario(
  body: (scenario: V2Scenario) => Promise<void>,
  machine: V2Machine = {},
): Promise<V2ScenarioOutput> {
  const workDir = mkdtempSync(join(tmpdir(), SNAPSHOT_WORK_PREFIX))
  const storeDir = join(workDir, 'store')
  const transcriptFile = join(workDir, 'transcript.jsonl')
  const cwd = join(workDir, SNAPSHOT_PROJECT)
  mkdirSync(cwd)
  const context: NormalizeContext = { storeDir, workDir }
  const agents: V2AgentProcess[] = []
  const problems: string[] = []
  const files: Record<string, string> = {}
  const processes: ReplaySpec['processes'][number][] = []
  const record = (name: string, text: string) => {
    writeFileSync(join(workDir, name), text)
    files[name] = text.replaceAll(workDir, '<work>')
    return join(workDir, name)
  }
  try {
    await body({
      cwd,
      scriptModel(turns) {
        return `script:${record(MODEL_FILE, JSON.stringify({ turns }))}`
      },
      projectFile(name, text) {
        return record(join(SNAPSHOT_PROJECT, name), text)
      },
      start(options) {
        // replay.json starts every process with the hermetic environment alone.
        if (options.env) throw new Error('a v2 snapshot scenario cannot add to the environment')
        processes.push({ idPrefix: 'ses_', args: options.args.map((a) => a.replaceAll(workDir, '<work>')) })
        const agent = new V2AgentProcess({
          ...options,
          ...(machine.env && { env: machine.env }),
          args: [
            ...['--store', storeDir, '--fake-clock', SNAPSHOT_CLOCK, '--id-prefix', 'ses_'],
            ...['--transcript', transcriptFile, '--log-level', 'error'],
            ...options.args,
          ],
        })
        agents.push(agent)
        return agent
      },
    })
    for (const [index, agent] of agents.entries()) {
      const code = await agent.stop()
      if (code !== 0) problems.push(`process ${index} exited with ${code}: ${agent.stderr}`)
      problems.push(...agent.audit.problems)
    }
    const transcript = normalizeSnapshotText(readFileSync(transcriptFile, 'utf8'), context)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => `${versionless(line)}\n`)
      .join('')
    const storeFiles = new Map<string, string>()
    if (existsSync(storeDir))
      for (const name of readdirSync(storeDir)
        .filter((n) => n.endsWith('.jsonl'))
        .sort())
        storeFiles.set(name, normalizeSnapshotText(readFileSync(join(storeDir, name), 'utf8'), context))
    const spec: ReplaySpec = { processes, files }
    return { transcript, storeFiles, problems, replaySpec: `${JSON.stringify(spec, null, 2)}\n` }
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

/** A transcript line answering v2's `initialize` with its `info.version` as `<version>`. */
function versionless(line: string): string {
  const entry = JSON.parse(line) as { msg?: { result?: { info?: { version?: string } } } }
  const info = entry.msg?.result?.info
  if (info?.version === undefined) return line
  info.version = '<version>'
  return JSON.stringify(entry)
}

/**
 * Compares a v2 scenario's output with `test/snapshots-v2/<name>/` (the transcript, `replay.json`
 * and the store files; `vitest -u` rewrites them).
 */
export async function expectV2Snapshot(name: string, output: V2ScenarioOutput): Promise<void> {
  expect(output.problems).toEqual([])
  const dir = join(V2_SNAPSHOT_ROOT, name)
  await expect(output.transcript).toMatchFileSnapshot(join(dir, 'transcript.jsonl'))
  await expect(output.replaySpec).toMatchFileSnapshot(join(dir, 'replay.json'))
  for (const [file, text] of output.storeFiles)
    await expect(text).toMatchFileSnapshot(join(dir, 'store', file))
  const storeDir = join(dir, 'store')
  const stale = (existsSync(storeDir) ? readdirSync(storeDir) : []).filter((f) => !output.storeFiles.has(f))
  expect(stale, `stale files in ${storeDir}: delete them`).toEqual([])
}
