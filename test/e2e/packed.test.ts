import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { validateAcpMessage } from '../support/acp-schema.js'
import { LineSplitter } from '../support/wire-audit.js'

const run = promisify(execFile)
const ROOT = resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'dsh-acp-packed-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/**
 * The package as the ACP Registry runs it (`npx dsh-acp@VERSION`): packed from the built work tree
 * with `npm pack`, installed into an empty directory (dependencies from npm's cache where it has
 * them), and started through `npx`, not from the work tree.
 */
describe('the packed package', () => {
  it('installs from its tarball into a clean directory, and npx dsh-acp serves ACP', {
    timeout: 240_000,
  }, async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: ROOT })
    const [{ filename, files }] = JSON.parse(packed.stdout) as [
      { filename: string; files: { path: string }[] },
    ]
    const paths = files.map((f) => f.path)
    expect(paths).toContain('dist/cli.cjs')
    expect(paths).toContain('schemas/config-file.schema.json')
    expect(paths.filter((p) => p.startsWith('src/') || p.startsWith('test/'))).toEqual([])
    // Source maps point at sources the package does not ship: they are left out (12 of its 21 MB).
    expect(paths.filter((p) => p.endsWith('.map'))).toEqual([])
    const project = join(scratch, 'project')
    await run('mkdir', ['-p', project])
    writeFileSync(join(project, 'package.json'), '{"name":"clean","version":"1.0.0","private":true}\n')
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(scratch, filename)], {
      cwd: project,
    })
    const home = join(scratch, 'home')
    const lines = await converse(project, home, [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: project, mcpServers: [] } },
    ])
    const methods = new Map([
      [0, 'initialize'],
      [1, 'session/new'],
    ])
    for (const line of lines) {
      const message = JSON.parse(line) as { id?: number }
      const method = message.id === undefined ? undefined : methods.get(message.id)
      expect(validateAcpMessage(message, method ? { method } : {}), line).toEqual([])
    }
    const init = JSON.parse(lines[0] as string)
    expect(init.result.agentInfo.name).toBe('dsh-acp')
    expect(init.result.authMethods.map((m: { id: string }) => m.id)).toEqual(['dsh-acp-api-key'])
    expect(lines.some((line) => JSON.parse(line).id === 1 && JSON.parse(line).result?.sessionId)).toBe(true)
  })
})

/** Starts `npx dsh-acp --memory` in `cwd`, writes each message once the previous one is answered, then ends stdin. */
function converse(
  cwd: string,
  home: string,
  messages: readonly { readonly id: number; readonly [key: string]: unknown }[],
): Promise<string[]> {
  return new Promise((done, fail) => {
    const child = spawn('npx', ['--no-install', 'dsh-acp', '--memory'], {
      cwd,
      env: { ...process.env, XDG_CONFIG_HOME: join(home, '.config'), DSH_HOME: join(home, 'data') },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const lines: string[] = []
    let next = 0
    const send = () => {
      const message = messages[next++]
      if (message) child.stdin.write(`${JSON.stringify(message)}\n`)
      else child.stdin.end()
    }
    const splitter = new LineSplitter((line) => {
      lines.push(line)
      const id = (JSON.parse(line) as { id?: number }).id
      if (id !== undefined && id === messages[next - 1]?.id) send()
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk))
    child.on('error', fail)
    child.on('close', (code) =>
      code === 0 ? done(lines) : fail(new Error(`npx dsh-acp exited ${code}: ${stderr}`)),
    )
    send()
  })
}
