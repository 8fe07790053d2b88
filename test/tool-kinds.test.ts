import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { ACP_TOOL_KINDS, isToolKind } from '../src/session/index.js'

const require = createRequire(import.meta.url)

/** The constants of a schema's `ToolKind` (a `oneOf` of `const`s). */
function schemaToolKinds(file: string): unknown[] {
  const schema = JSON.parse(
    readFileSync(require.resolve(`@agentclientprotocol/sdk/schema/v1/${file}`), 'utf8'),
  ) as {
    $defs: { ToolKind: { oneOf: { const?: unknown }[] } }
  }
  return schema.$defs.ToolKind.oneOf.map((branch) => branch.const)
}

describe('ACP_TOOL_KINDS', () => {
  it.each(['schema.json', 'schema.unstable.json'])('is the ToolKind enum of %s, in its order', (file) => {
    expect([...ACP_TOOL_KINDS]).toEqual(schemaToolKinds(file))
  })

  it('tells a kind ACP defines from one it does not', () => {
    expect(ACP_TOOL_KINDS.every(isToolKind)).toBe(true)
    expect(isToolKind('wizardry')).toBe(false)
    expect(isToolKind('constructor')).toBe(false)
  })
})
