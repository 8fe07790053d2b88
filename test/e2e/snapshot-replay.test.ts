import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderText } from '../../src/replay/report.js'
import { replaySnapshot } from '../support/snapshot-replay.js'
import { SNAPSHOT_ROOT } from '../support/snapshot-scenario.js'

/**
 * Every scenario under test/snapshots is replayed through `dsh-acp replay`'s engine against the
 * built server on a fresh store, started as its `replay.json` says: the transcript must compare
 * equal with no ACP schema violation (stable schema for stable methods), and the store files the
 * replay leaves must equal the scenario's stored ones. A transcript plus its store files is a
 * complete spec of a scenario.
 */

const scenarios = readdirSync(SNAPSHOT_ROOT)
  .filter((name) => statSync(join(SNAPSHOT_ROOT, name)).isDirectory())
  .sort()

describe('every snapshot scenario replays equal through the replay engine', () => {
  it('finds the scenarios', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(15)
  })

  for (const name of scenarios) {
    it(name, async () => {
      expect(
        existsSync(join(SNAPSHOT_ROOT, name, 'replay.json')),
        `${name}/replay.json (runScenario writes it)`,
      ).toBe(true)
      const { report, storeFiles, processes } = await replaySnapshot(name)
      const file = `${name}/transcript.jsonl`
      expect(renderText(report, file)).toMatch(
        new RegExp(`^${file}: equal \\(\\d+ agent messages, \\d+ connections?\\)\\n$`),
      )
      expect(report.connections).toHaveLength(processes)
      const storeDir = join(SNAPSHOT_ROOT, name, 'store')
      const stored = existsSync(storeDir) ? readdirSync(storeDir).sort() : []
      expect([...storeFiles.keys()]).toEqual(stored)
      for (const [session, text] of storeFiles) {
        expect(text, `${name}/store/${session}`).toBe(readFileSync(join(storeDir, session), 'utf8'))
      }
    })
  }
})
