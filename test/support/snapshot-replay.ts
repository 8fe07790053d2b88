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
import { basename, dirname, join } from 'node:path'
import { compileRules } from '../../src/replay/compare/rules.js'
import { type ReplayReport, replay } from '../../src/replay/replay.js'
import { readScript } from '../../src/replay/script.js'
import { CLI, HERMETIC_ENV } from './agent-process.js'
import { startFakeOpenAi } from './fake-openai.js'
import {
  type NormalizeContext,
  normalizeSnapshotText,
  SANDBOX_NOTE_RULE,
  snapshotPlaceholders,
} from './snapshot-normalize.js'
import { SNAPSHOT_CLOCK, SNAPSHOT_PROJECT } from './snapshot-scenario.js'
import { CONFIG_HOME, MODEL_SERVER, PROJECT_NODE_MODULES, type ReplaySpec } from './snapshot-spec.js'

export interface SnapshotReplay {
  readonly report: ReplayReport
  /** The session files the replayed server left in its store, normalized like the snapshot's. */
  readonly storeFiles: ReadonlyMap<string, string>
  readonly processes: number
}

/**
 * Replays `<dir>/transcript.jsonl` (a scenario folder of `test/snapshots` or `test/snapshots-v2`) through the replay engine (`src/replay`)
 * against the built server, started as `replay.json` says on a fresh store, with
 * `--validate`'s schema checks; the snapshot normalization's paths are `--set` placeholders (and
 * its sandbox note a `--rules` pattern), so
 * the client's messages carry this replay's real directories (the cwd `<work>/project` exists).
 */
export async function replaySnapshot(dir: string, timeoutMs = 10_000): Promise<SnapshotReplay> {
  const name = basename(dir)
  const spec = JSON.parse(readFileSync(join(dir, 'replay.json'), 'utf8')) as ReplaySpec
  const workDir = mkdtempSync(join(tmpdir(), 'dsh-acp-snapshot-replay-'))
  const storeDir = join(workDir, 'store')
  const context: NormalizeContext = { storeDir, workDir }
  const fake = spec.modelServer ? await startFakeOpenAi(spec.modelServer) : undefined
  try {
    mkdirSync(storeDir)
    for (const name of [SNAPSHOT_PROJECT, ...(spec.directories ?? [])]) mkdirSync(join(workDir, name))
    if (spec.nodeModules) symlinkSync(PROJECT_NODE_MODULES, join(workDir, 'node_modules'), 'dir')
    for (const [file, text] of Object.entries(spec.files)) {
      mkdirSync(dirname(join(workDir, file)), { recursive: true })
      writeFileSync(join(workDir, file), text.replaceAll('<work>', workDir))
    }
    const env = spec.configHome
      ? { ...HERMETIC_ENV, XDG_CONFIG_HOME: join(workDir, CONFIG_HOME) }
      : HERMETIC_ENV
    const report = await replay({
      script: readScript(join(dir, 'transcript.jsonl')),
      launch: (connection) => {
        const process_ = spec.processes[connection]
        if (!process_)
          throw new Error(`${name}: the transcript has more connections than replay.json has processes`)
        const args = process_.args.map((a) =>
          a.replaceAll('<work>', workDir).replaceAll(MODEL_SERVER, fake?.url ?? MODEL_SERVER),
        )
        return {
          command: process.execPath,
          args: [
            CLI,
            '--store',
            storeDir,
            '--fake-clock',
            SNAPSHOT_CLOCK,
            '--id-prefix',
            process_.idPrefix,
            '--log-level',
            'error',
            ...args,
          ],
          env,
        }
      },
      placeholders: snapshotPlaceholders(context),
      rules: compileRules([SANDBOX_NOTE_RULE]),
      validate: true,
      timeoutMs,
    })
    const storeFiles = new Map<string, string>()
    for (const file of existsSync(storeDir)
      ? readdirSync(storeDir)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
      : []) {
      storeFiles.set(file, normalizeSnapshotText(readFileSync(join(storeDir, file), 'utf8'), context))
    }
    return { report, storeFiles, processes: spec.processes.length }
  } finally {
    await fake?.close()
    rmSync(workDir, { recursive: true, force: true })
  }
}
