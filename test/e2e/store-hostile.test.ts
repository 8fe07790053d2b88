import { execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess, CLI } from '../support/agent-process.js'
import { PROJECT_DIR } from '../support/project-dir.js'

const CWD = PROJECT_DIR
const agents: AgentProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const agent of agents.splice(0)) if (agent.child.exitCode === null) await agent.kill()
  for (const dir of dirs.splice(0)) {
    chmodSync(dir, 0o700)
    rmSync(dir, { recursive: true, force: true })
  }
})

function store(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-acp-store-hostile-'))
  dirs.push(dir)
  return dir
}

/**
 * The built server (the bundle, its chunks and the package.json it reads its version from) copied
 * where any user can read it: an unprivileged user may not be able to enter the checkout (a
 * `mktemp -d` folder, `/root`).
 */
function serverAnyoneCanRun(): string {
  const root = store()
  chmodSync(root, 0o755)
  cpSync(dirname(CLI), join(root, 'dist'), { recursive: true })
  cpSync(join(dirname(CLI), '..', 'package.json'), join(root, 'package.json'))
  return join(root, 'dist', 'cli.cjs')
}

function start(storeDir: string, options: { uid?: number } = {}): AgentProcess {
  const agent = new AgentProcess({
    storeDir,
    ...options,
    ...(options.uid !== undefined && { command: [serverAnyoneCanRun(), '--store', storeDir] }),
  })
  agents.push(agent)
  return agent
}

/** A store holding one session with one turn; resolves its id. */
async function storedSession(dir: string): Promise<string> {
  const agent = start(dir)
  await agent.initialize()
  const { sessionId } = await agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })
  await agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'kept' }] })
  expect(await agent.stop()).toBe(0)
  return sessionId
}

describe('a hostile store directory over the wire', () => {
  it('a session file that links elsewhere is -32012, the target untouched; FIFOs do not hang list or exit', async () => {
    const dir = store()
    const sessionId = await storedSession(dir)
    const elsewhere = join(store(), 'victim.jsonl')
    writeFileSync(
      elsewhere,
      readFileSync(join(dir, `${sessionId}.jsonl`), 'utf8').replaceAll(sessionId, 'linked'),
    )
    const before = readFileSync(elsewhere, 'utf8')
    symlinkSync(elsewhere, join(dir, 'linked.jsonl'))
    execFileSync('mkfifo', [join(dir, 'fifo.jsonl')])
    mkdirSync(join(dir, 'dir.jsonl'))

    const agent = start(dir)
    await agent.initialize()
    await expect(
      agent.agent.request('session/load', { sessionId: 'linked', cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32012, message: expect.stringContaining('symbolic link') })
    await expect(
      agent.agent.request('session/load', { sessionId: 'dir', cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32012, message: expect.stringContaining('directory') })
    const { sessions } = await agent.agent.request('session/list', {})
    expect(sessions.map((s) => s.sessionId)).toEqual([sessionId])
    expect(await agent.stop()).toBe(0)
    expect(readFileSync(elsewhere, 'utf8')).toBe(before)
    expect(agent.audit.problems).toEqual([])
  })

  it('a fork boundary nested 3,500 deep is -32602', async () => {
    const dir = store()
    const sessionId = await storedSession(dir)
    const agent = start(dir)
    await agent.initialize()
    const deep = JSON.parse(`${'['.repeat(3500)}${']'.repeat(3500)}`)
    await expect(
      agent.agent.request('session/fork', {
        sessionId,
        cwd: CWD,
        mcpServers: [],
        _meta: { dsh: { boundary: deep } },
      }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(await agent.stop()).toBe(0)
  })

  it('session/new refuses a cwd that is a file or holds NUL with -32602', async () => {
    const dir = store()
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    const agent = start(dir)
    await agent.initialize()
    for (const cwd of [file, '/tmp/a\u0000b']) {
      await expect(agent.agent.request('session/new', { cwd, mcpServers: [] }), cwd).rejects.toMatchObject({
        code: -32602,
      })
    }
    expect(readdirSync(dir)).toEqual(['a-file'])
    expect(await agent.stop()).toBe(0)
  })

  it('warns about a store directory others may write', async () => {
    const dir = store()
    chmodSync(dir, 0o777)
    const agent = start(dir)
    await agent.initialize()
    expect(await agent.stop()).toBe(0)
    expect(agent.stderr).toContain('writable by others')
  })

  it('a prompt racing a delete of the same session never gets -32010 or -32603', async () => {
    const dir = store()
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push(await storedSession(dir))
    const agent = start(dir)
    await agent.initialize()
    for (const sessionId of ids) {
      const prompt = agent.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'race' }],
      })
      const deleted = agent.agent.request('session/delete', { sessionId })
      const [p, d] = await Promise.allSettled([prompt, deleted])
      expect(d.status, JSON.stringify(d)).toBe('fulfilled')
      if (p.status === 'rejected') expect((p.reason as { code: number }).code).toBe(-32002)
    }
    expect(await agent.stop()).toBe(0)
  })

  it('a read-only store: new, load, prompt and delete say the store cannot be written (-32011), never -32603', async () => {
    const dir = store()
    const sessionId = await storedSession(dir)
    const asRoot = process.getuid?.() === 0
    if (asRoot) {
      for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o644)
      chmodSync(dir, 0o755)
    } else {
      chmodSync(dir, 0o555)
    }
    const agent = start(dir, asRoot ? { uid: 65534 } : {})
    await agent.initialize()
    const readOnly = { code: -32011, message: expect.stringMatching(/EACCES|permission/i) }
    await expect(agent.agent.request('session/new', { cwd: CWD, mcpServers: [] })).rejects.toMatchObject(
      readOnly,
    )
    await expect(
      agent.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] }),
    ).rejects.toMatchObject(readOnly)
    await expect(
      agent.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }] }),
    ).rejects.toMatchObject(readOnly)
    await expect(agent.agent.request('session/delete', { sessionId })).rejects.toMatchObject(readOnly)
    expect(await agent.stop()).toBe(0)
  })
})

describe('at the file-descriptor limit', () => {
  it('a session/new that fails leaves no file; session/list is whole or an error, never partial', async () => {
    const dir = store()
    const child = spawn('sh', ['-c', `ulimit -n 64; exec "${process.execPath}" "${CLI}" --store "${dir}"`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    const answers = new Map<
      number,
      { result?: { sessionId?: string; sessions?: unknown[] }; error?: { code: number } }
    >()
    let rest = ''
    child.stdout.on('data', (chunk: Buffer) => {
      rest += chunk.toString('utf8')
      for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n')) {
        const message = JSON.parse(rest.slice(0, nl))
        rest = rest.slice(nl + 1)
        if (typeof message.id === 'number') answers.set(message.id, message)
      }
    })
    const request = async (id: number, method: string, params: unknown) => {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
      while (!answers.has(id)) {
        if (child.exitCode !== null) throw new Error(`agent exited ${child.exitCode}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      return answers.get(id) as NonNullable<ReturnType<typeof answers.get>>
    }
    await request(0, 'initialize', { protocolVersion: 1 })
    const created: string[] = []
    let refused = 0
    for (let id = 1; id <= 70; id++) {
      const answer = await request(id, 'session/new', { cwd: CWD, mcpServers: [] })
      if (answer.result?.sessionId) created.push(answer.result.sessionId)
      else {
        expect(answer.error?.code).toBe(-32011)
        refused++
      }
    }
    expect(refused, 'the limit was reached').toBeGreaterThan(0)
    const listed = await request(100, 'session/list', {})
    if (listed.result) expect(listed.result.sessions).toHaveLength(created.length)
    else expect(listed.error?.code).toBe(-32011)
    child.stdin.end()
    expect(await exited).toBe(0)
    const files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'))
    expect(files.sort()).toEqual(created.map((id) => `${id}.jsonl`).sort())
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})
