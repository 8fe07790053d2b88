import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderText } from '../../src/replay/report.js'
import { replaySnapshot } from '../support/snapshot-replay.js'
import { SNAPSHOT_ROOT } from '../support/snapshot-scenario.js'
import { V2_SNAPSHOT_ROOT } from '../support/v2/v2-scenario.js'

/**
 * Every scenario under test/snapshots (ACP v1) and test/snapshots-v2 (ACP v2) is replayed through
 * `dsh-acp replay`'s engine against the built server on a fresh store, started as its
 * `replay.json` says: the transcript must compare equal with no schema violation (the schema of
 * the protocol version the server chose at `initialize`; stable schema for stable methods), and
 * the store files the replay leaves must equal the scenario's stored ones. A transcript plus its
 * store files is a complete spec of a scenario.
 */

const scenariosIn = (root: string) =>
  readdirSync(root)
    .filter((name) => statSync(join(root, name)).isDirectory())
    .sort()

const roots = [
  { protocol: 'v1', root: SNAPSHOT_ROOT, least: 15 },
  { protocol: 'v2', root: V2_SNAPSHOT_ROOT, least: 8 },
]

for (const { protocol, root, least } of roots)
  describe(`every ${protocol} snapshot scenario replays equal through the replay engine`, () => {
    const scenarios = scenariosIn(root)

    it('finds the scenarios', () => {
      expect(scenarios.length).toBeGreaterThanOrEqual(least)
    })

    for (const name of scenarios) {
      it(name, async () => {
        const dir = join(root, name)
        expect(existsSync(join(dir, 'replay.json')), `${name}/replay.json (the scenario writes it)`).toBe(
          true,
        )
        const { report, storeFiles, processes } = await replaySnapshot(dir)
        const file = `${name}/transcript.jsonl`
        expect(renderText(report, file)).toMatch(
          new RegExp(`^${file}: equal \\(\\d+ agent messages, \\d+ connections?\\)\\n$`),
        )
        expect(report.connections).toHaveLength(processes)
        const storeDir = join(dir, 'store')
        const stored = existsSync(storeDir) ? readdirSync(storeDir).sort() : []
        expect([...storeFiles.keys()]).toEqual(stored)
        for (const [session, text] of storeFiles) {
          expect(text, `${name}/store/${session}`).toBe(readFileSync(join(storeDir, session), 'utf8'))
        }
      })
    }
  })
