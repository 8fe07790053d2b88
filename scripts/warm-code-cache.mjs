import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/**
 * The build's warm-up: runs the built CLI three times with `DSH_WRITE_CODE_CACHE=1`, in a
 * temporary home, so that the code of what a start, a first session, a prompt and a `session/load`
 * run is written to `dist/code-cache/` (src/process/early-start/code-cache.ts). Each run starts
 * from the caches the one before wrote, so the last holds the code of all three. Any failure fails
 * the build, with the server's stderr.
 */
const CONFIG = {
  providers: {
    local: {
      baseUrl: 'http://127.0.0.1:9/v1',
      keyRequired: false,
      models: [{ name: 'warm-up', contextWindow: 32768, imageInput: false }],
    },
  },
  defaultModel: 'local/warm-up',
  defaultMode: 'ask',
}
const RUN_MS = 60_000

export async function warmCodeCache(cli) {
  const home = mkdtempSync(join(tmpdir(), 'dsh-warm-'))
  try {
    const at = places(home)
    await run(
      cli,
      at,
      ['--memory'],
      async (call) => {
        await call('session/new', { cwd: at.project, mcpServers: [] })
      },
      at.configured,
    )
    let sessionId = ''
    await run(cli, at, ['--store', at.store], async (call) => {
      sessionId = (await call('session/new', { cwd: at.project, mcpServers: [] })).sessionId
      await call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'warm up' }] })
      await call('session/list', {})
    })
    await run(cli, at, ['--store', at.store], async (call) => {
      await call('session/load', { sessionId, cwd: at.project, mcpServers: [] })
    })
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

function places(home) {
  const at = {
    home,
    project: join(home, 'project'),
    store: join(home, 'store'),
    empty: join(home, 'config-none'),
    configured: join(home, 'config'),
  }
  for (const dir of [at.project, at.empty, join(at.configured, 'dsh-acp')])
    mkdirSync(dir, { recursive: true })
  mkdirSync(at.store, { mode: 0o700 })
  writeFileSync(join(at.project, 'AGENTS.md'), '# Agents\n\nRun the tests before committing.\n')
  writeFileSync(join(at.configured, 'dsh-acp', 'config.json'), `${JSON.stringify(CONFIG)}\n`)
  return at
}

/** One server: `initialize`, then `session` with a `call(method, params)` that resolves to the result. */
async function run(cli, at, args, session, configHome = at.empty) {
  const env = {
    ...process.env,
    HOME: at.home,
    XDG_CONFIG_HOME: configHome,
    XDG_DATA_HOME: join(at.home, 'data'),
    XDG_CACHE_HOME: join(at.home, 'cache'),
    DSH_HOME: join(at.home, 'dsh'),
    DSH_WRITE_CODE_CACHE: '1',
  }
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: at.project,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = once(child, 'exit')
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_MS)
  try {
    const call = caller(child)
    await call('initialize', { protocolVersion: 1, clientCapabilities: {} })
    await session(call)
    child.stdin.end()
    const [code] = await exited
    if (code !== 0) throw new Error(`exited with ${code}`)
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`the code cache warm-up run (${args.join(' ')}) failed: ${error.message}\n${stderr}`)
  } finally {
    clearTimeout(timer)
  }
}

/** Requests one at a time over the child's stdio; a request of the agent's is refused. */
function caller(child) {
  const waiting = new Map()
  let nextId = 0
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`)
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.method !== undefined && message.id !== undefined) {
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not in the warm-up' } })
      return
    }
    const pending = message.method === undefined ? waiting.get(message.id) : undefined
    if (pending === undefined) return
    waiting.delete(message.id)
    if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`))
    else pending.resolve(message.result)
  })
  child.on('exit', () => {
    for (const pending of waiting.values())
      pending.reject(new Error(`the server exited during ${pending.method}`))
  })
  return (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { method, resolve, reject })
      send({ jsonrpc: '2.0', id, method, params })
    })
}
