import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let version: string | undefined

/**
 * The `version` of dsh-acp's own package.json: the one place the agent's version comes from (the
 * `initialize` answer's `agentInfo`, the MCP client's `clientInfo`, `--version`). Found by walking
 * up from this module, so it holds from the sources, the tsc output and the bundle with its chunks.
 */
export function packageVersion(): string {
  if (version !== undefined) return version
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const found = readPackage(join(dir, 'package.json'))
    if (found !== undefined) {
      version = found
      return found
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('the package.json of dsh-acp was not found')
    dir = parent
  }
}

function readPackage(path: string): string | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  const data = JSON.parse(text) as { name?: unknown; version?: unknown }
  return data.name === 'dsh-acp' && typeof data.version === 'string' ? data.version : undefined
}
