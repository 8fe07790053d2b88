import { describe, expect, it } from 'vitest'
import { Normalizer } from '../../src/replay/compare/normalize.js'
import { compileRules } from '../../src/replay/compare/rules.js'
import { normalizeSnapshotText, SANDBOX_NOTE_RULE } from './snapshot-normalize.js'

const context = { storeDir: '/tmp/dsh-acp-snapshot-abcdef/store', workDir: '/tmp/dsh-acp-snapshot-abcdef' }
const result = (output: string) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { update: { sessionUpdate: 'tool_call_update', rawOutput: output, content: [{ text: output }] } },
})

describe("the snapshot normalization's sandbox note (rule 3)", () => {
  const note =
    '\n[ran without a sandbox: bubblewrap does not work here (bwrap: No permissions to create new namespace)]'

  it('removes the note a machine without bubblewrap adds, in every string of a line, and keeps --sandbox off', () => {
    const line = (output: string) => JSON.stringify({ dir: 'out', msg: result(output) })
    const text = `${line(`exit code 0\nok\n${note}`)}\n${line('exit code 0\n\n[ran without a sandbox: the sandbox is off (--sandbox off)]')}\n`
    expect(normalizeSnapshotText(text, context)).toBe(
      `${line('exit code 0\nok\n')}\n${line('exit code 0\n\n[ran without a sandbox: the sandbox is off (--sandbox off)]')}\n`,
    )
    const plain = `${line('exit code 0\nok\n')}\n`
    expect(normalizeSnapshotText(plain, context)).toBe(plain)
  })

  it('is the replay rule too: a live result with the note compares equal to one without', () => {
    const rules = compileRules([SANDBOX_NOTE_RULE])
    const live = new Normalizer(rules).normalize(result(`exit code 0\nok\n${note}`), 'out')
    const recorded = new Normalizer(rules).normalize(result('exit code 0\nok\n'), 'out')
    expect(live).toEqual(recorded)
  })
})
