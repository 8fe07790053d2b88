import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * House rule: what a client advertised at `initialize` is read in one place, its view
 * (src/acp/views/client-features.ts); nothing under src/session/ or src/agent/ reads it, takes a
 * flag derived from it, or decides by it. The agent and the session emit the canonical form of
 * every update; the protocol layer renders it per client.
 */
const LAYERS = ['src/session', 'src/agent']

/** What reading or passing on a client's capabilities looks like in a source line. */
const CAPABILITY_READS: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /\bclientCapabilities\b/, what: 'the client’s capabilities' },
  { pattern: /(?<!mcp)ClientCapabilities\b/, what: 'the ACP ClientCapabilities type' },
  { pattern: /\bClient(State|Features)\b/, what: 'what the protocol layer keeps of the client' },
  {
    pattern: /\bcapabilities\??\.(session|plan|subagents|fs|terminal|elicitation)\b/,
    what: 'a capability read',
  },
  { pattern: /\bsupports(Notices|Compaction|Plan\w*|Subagents)\b/, what: 'a capability predicate' },
  { pattern: /\b(compactionUpdates|capable|wire)\s*[?]?:\s*boolean\b/, what: 'a capability flag' },
]

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** `file:line: what` for each line of `text` that reads a client's capabilities. */
function capabilityReads(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      CAPABILITY_READS.filter(({ pattern }) => pattern.test(line)).map(
        ({ what }) => `${file}:${i + 1}: ${what}: ${line.trim()}`,
      ),
    )
}

describe('client capabilities below the protocol layer', () => {
  it('are read by nothing under src/session/ or src/agent/', () => {
    const root = join(import.meta.dirname, '..')
    const found = LAYERS.flatMap((layer) =>
      sources(join(root, layer)).flatMap((path) =>
        capabilityReads(relative(root, path), readFileSync(path, 'utf8')),
      ),
    )
    expect(found).toEqual([])
  })

  it('the check sees the ways they used to be read', () => {
    const old = [
      'const notices = supportsNotices(call.client)',
      '  readonly compactionUpdates?: boolean',
      'export function x(client: ClientState | undefined) {',
      'const value = client?.capabilities.session?.compaction',
      '    private readonly wire: boolean,',
    ].join('\n')
    expect(capabilityReads('old.ts', old)).toHaveLength(5)
    expect(capabilityReads('ok.ts', 'const capabilities = mcpClientCapabilities(modes)')).toEqual([])
  })
})
