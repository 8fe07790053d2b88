import { resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { ToolRegistry } from '../tools/registry.js'
import { McpConnection } from './mcp-connection.js'
import type { McpServerConfig } from './server-config.js'

const SERVER = resolve(import.meta.dirname, '../../../test/support/mcp/content-server.mjs')
const config: McpServerConfig = {
  transport: 'stdio',
  name: 'c',
  command: process.execPath,
  args: [SERVER],
  env: [],
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Collects garbage until `ref` is cleared (WeakRefs hold their target to the end of a job), at most 20 rounds. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 20 && ref.deref() !== undefined; round++) {
    await new Promise((r) => setImmediate(r))
    gc()
  }
  return ref.deref() === undefined
}

describe('MCP schemas per connection', () => {
  it('nothing keeps the schemas of a closed connection: a reconnect does not add to what was compiled', async () => {
    const registry = new ToolRegistry()
    const open = (sessionId: string) =>
      McpConnection.open(config, {
        sessionId,
        cwd: process.cwd(),
        registry,
        timeoutMs: 10_000,
        rank: 0,
        onLost: () => {},
      })
    const schemaOf = (sessionId: string) => {
      // Its properties: the registry compiles a copy of the schema's top level, not its parts.
      const schema = registry.forSession(sessionId).get('mcp__c__pattern')?.tool.spec.inputSchema as
        | { properties?: object }
        | undefined
      if (schema?.properties === undefined) throw new Error('mcp__c__pattern is not registered')
      return new WeakRef(schema.properties)
    }
    const first = await open('s1')
    const firstSchema = schemaOf('s1')
    await first.close()
    expect(await collected(firstSchema)).toBe(true)
    // The same schema $id on two live connections: each connection has its own ajv.
    const [second, third] = await Promise.all([open('s2'), open('s3')])
    expect([second.skipped, third.skipped]).toEqual([[], []])
    const secondSchema = schemaOf('s2')
    await Promise.all([second.close(), third.close()])
    expect(await collected(secondSchema)).toBe(true)
  })
})
