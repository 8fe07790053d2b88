import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { AgentProcess } from '../support/agent-process.js'
import { ConfigHome } from '../support/config-home.js'
import { eventually, isAlive, pidsIn, serverReady, stdioServer } from '../support/mcp/servers.js'
import { agentText } from './updates.js'

let home: ConfigHome | undefined
let agents: AgentProcess[] = []
afterEach(async () => {
  for (const agent of agents) {
    await agent.stop()
    agent.cleanup()
  }
  home?.cleanup()
  home = undefined
  agents = []
})

interface TrustReport {
  status: string
  details: { cwd: string; repoRoot?: string; ignoredPaths: string[]; availableDecisions: string[] }
}
type WithTrust = { sessionId?: string; workspaceTrust?: TrustReport }

/**
 * A home whose user configuration starts a `control` MCP server (its readiness proves the servers
 * of a session were started), and a cloned repository `repo` whose project file starts `hostile`,
 * which writes `marker` when it runs.
 */
function hostileRepo() {
  home = new ConfigHome()
  const repo = join(home.home, 'clones', 'repo')
  mkdirSync(join(repo, '.git'), { recursive: true })
  mkdirSync(join(repo, 'src'))
  const marker = join(home.home, 'hostile.pids')
  home.writeConfig({ mcpServers: [stdioServer('control', ['--pidfile', join(home.home, 'control.pids')])] })
  const project = join(repo, '.dsh-acp', 'config.json')
  mkdirSync(join(repo, '.dsh-acp'))
  writeFileSync(project, JSON.stringify({ mcpServers: [stdioServer('hostile', ['--pidfile', marker])] }))
  return { home, repo: realpathSync(repo), project: realpathSync(project), marker }
}

function start(cwd: string): AgentProcess {
  const agent = new AgentProcess({ env: (home as ConfigHome).env(), cwd })
  agents.push(agent)
  return agent
}

const failure = (request: Promise<unknown>) =>
  request.then(
    () => undefined,
    (error: { code: number; message: string }) => error,
  )

describe('workspace trust: a project runs nothing until its folder is trusted', () => {
  it("ignores an untrusted repository's MCP servers at session/new, says so, and starts them after trust/apply", async () => {
    const { repo, project, marker } = hostileRepo()
    const agent = start(repo)
    const init = await agent.initialize()
    expect(init.agentCapabilities?.sessionCapabilities).toHaveProperty('workspaceTrust', {})
    const created = (await agent.agent.request('session/new', { cwd: repo, mcpServers: [] })) as WithTrust
    const sessionId = created.sessionId as string
    expect(created.workspaceTrust).toEqual({
      status: 'untrusted',
      details: {
        cwd: repo,
        repoRoot: repo,
        ignoredPaths: [project],
        availableDecisions: ['trust_repo', 'trust_cwd', 'trust_session', 'decline'],
      },
    })
    await serverReady(() => agent.stderr, sessionId, 'control')
    expect(existsSync(marker)).toBe(false)
    await agent.agent.request('session/list', {})
    const mine = agent.updates.filter((n) => n.sessionId === sessionId)
    expect(agentText(mine)).toContain("ignored this folder's project configuration")
    expect(agentText(mine)).toContain(project)
    const commands = mine.find((n) => n.update.sessionUpdate === 'available_commands_update')?.update as
      | { availableCommands: { name: string }[] }
      | undefined
    expect(commands?.availableCommands.map((c) => c.name)).toContain('trust')

    // Decisions the workspace does not offer, or without their session, are -32602.
    expect(
      (await failure(agent.agent.request('trust/apply', { cwd: repo, decision: 'trust_session' })))?.code,
    ).toBe(-32602)
    expect((await failure(agent.agent.request('trust/apply', { cwd: repo, decision: 'always' })))?.code).toBe(
      -32602,
    )

    const applied = await agent.agent.request<{ workspaceTrust: TrustReport }>('trust/apply', {
      cwd: repo,
      decision: 'trust_session',
      sessionId,
    })
    expect(applied.workspaceTrust.status).toBe('session')
    expect(applied.workspaceTrust.details.ignoredPaths).toEqual([])
    await serverReady(() => agent.stderr, sessionId, 'hostile')
    expect(existsSync(marker)).toBe(true)

    // Session trust is this session's: another session in the repository is untrusted again.
    const other = (await agent.agent.request('session/new', { cwd: repo, mcpServers: [] })) as WithTrust
    expect(other.workspaceTrust?.status).toBe('untrusted')
    expect(agent.audit.problems).toEqual([])
  })

  it("trust_repo is kept in the user's trust.json and covers the repository's subdirectories after a restart", async () => {
    const { home, repo, marker } = hostileRepo()
    const first = start(repo)
    await first.initialize()
    const applied = await first.agent.request<{ workspaceTrust: TrustReport }>('trust/apply', {
      cwd: repo,
      decision: 'trust_repo',
    })
    expect(applied.workspaceTrust.status).toBe('trusted')
    expect(JSON.parse(readFileSync(join(home.dir, 'trust.json'), 'utf8')).folders[repo]).toMatchObject({
      decision: 'trusted',
      scope: 'repo',
    })
    const agent = start(repo)
    await agent.initialize()
    const sub = join(repo, 'src')
    const created = (await agent.agent.request('session/new', { cwd: sub, mcpServers: [] })) as WithTrust
    expect(created.workspaceTrust).toMatchObject({
      status: 'trusted',
      details: { cwd: sub, ignoredPaths: [] },
    })
    await serverReady(() => agent.stderr, created.sessionId as string, 'hostile')
    expect(existsSync(marker)).toBe(true)

    // Declining it again stops the project's server in the session the decision names.
    await agent.agent.request('trust/apply', { cwd: sub, decision: 'decline', sessionId: created.sessionId })
    await eventually(() => pidsIn(marker).every((pid) => !isAlive(pid)))
    const after = (await agent.agent.request('session/new', { cwd: sub, mcpServers: [] })) as WithTrust
    expect(after.workspaceTrust?.status).toBe('untrusted')
    expect(agent.audit.problems).toEqual([])
  })

  it('/trust session, typed by the user of a client without workspace trust, starts the servers', async () => {
    const { repo, marker } = hostileRepo()
    const agent = start(repo)
    await agent.initialize({ session: { notices: {} } } as acp.ClientCapabilities)
    const created = (await agent.agent.request('session/new', { cwd: repo, mcpServers: [] })) as WithTrust
    const sessionId = created.sessionId as string
    await agent.agent.request('session/list', {})
    const notice = agent.updates.find((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'notice')
    expect(notice?.update).toMatchObject({
      severity: 'warning',
      description: expect.stringContaining('/trust'),
    })
    const state = await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/trust' }],
    })
    expect(state.stopReason).toBe('end_turn')
    expect(agentText(agent.updates)).toContain('This folder is not trusted')
    await agent.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/trust session' }],
    })
    expect(agentText(agent.updates)).toContain('trusted for this session only')
    await serverReady(() => agent.stderr, sessionId, 'hostile')
    expect(existsSync(marker)).toBe(true)
    expect(agent.audit.problems).toEqual([])
  })

  it('never follows a project file linked out of its project, even in a trusted repository', async () => {
    const { home, repo, project, marker } = hostileRepo()
    const outside = join(home.home, 'elsewhere.json')
    writeFileSync(outside, readFileSync(project))
    rmSync(project)
    symlinkSync(outside, project)
    home.trust(repo)
    const agent = start(repo)
    await agent.initialize()
    const created = (await agent.agent.request('session/new', { cwd: repo, mcpServers: [] })) as WithTrust
    await serverReady(() => agent.stderr, created.sessionId as string, 'control')
    await agent.agent.request('session/list', {})
    expect(existsSync(marker)).toBe(false)
    expect(agentText(agent.updates)).toContain('symbolic link leading out of')
    expect(agent.audit.problems).toEqual([])
  })
})

describe('where a project file is looked for', () => {
  it('not in a parent of a folder outside any repository, nor in a directory other users can write', async () => {
    home = new ConfigHome()
    const shared = join(home.home, 'shared')
    const cwd = join(shared, 'project')
    mkdirSync(join(shared, '.dsh-acp'), { recursive: true })
    mkdirSync(cwd)
    const marker = join(home.home, 'parent.pids')
    writeFileSync(
      join(shared, '.dsh-acp', 'config.json'),
      JSON.stringify({ mcpServers: [stdioServer('parent', ['--pidfile', marker])] }),
    )
    home.writeConfig({ mcpServers: [stdioServer('control', ['--pidfile', join(home.home, 'control.pids')])] })
    home.trust(shared)
    home.trust(cwd)
    const agent = start(cwd)
    await agent.initialize()
    const created = (await agent.agent.request('session/new', { cwd, mcpServers: [] })) as WithTrust
    await serverReady(() => agent.stderr, created.sessionId as string, 'control')
    expect(existsSync(marker)).toBe(false)

    // The same file in a trusted folder everybody can write is refused, saying why.
    chmodSync(shared, 0o777)
    const inShared = (await agent.agent.request('session/new', { cwd: shared, mcpServers: [] })) as WithTrust
    await serverReady(() => agent.stderr, inShared.sessionId as string, 'control')
    await agent.agent.request('session/list', {})
    expect(existsSync(marker)).toBe(false)
    expect(agentText(agent.updates)).toContain('can be written by every user')
    chmodSync(shared, 0o700)
  })
})

describe('dsh-acp trust, from a terminal', () => {
  it('adds, lists and removes decisions by real path', async () => {
    const { home, repo } = hostileRepo()
    expect((await home.run(['trust', 'list'])).stdout).toContain('no folder is trusted')
    const added = await home.run(['trust', 'add', join(repo, 'src', '..')])
    expect(added.code).toBe(0)
    const listed = await home.run(['trust'])
    expect(listed.stdout).toMatch(new RegExp(`trusted\\s+repo\\s+${repo}`))
    expect((await home.run(['trust', 'remove', repo])).code).toBe(0)
    expect((await home.run(['trust', 'remove', repo])).code).toBe(1)
    expect((await home.run(['trust', 'list'])).stdout).toContain('no folder is trusted')
    expect((await home.run(['trust', 'frobnicate'])).code).toBe(2)
  })
})

describe("a user's file that is not a small regular file never holds the server", () => {
  it('a FIFO config.json and credentials.json, a config.json linked to /dev/zero: initialize and session/new are answered', async () => {
    home = new ConfigHome()
    mkdirSync(home.dir, { recursive: true })
    execFileSync('mkfifo', [home.configFile, home.credentialsFile])
    const agent = start(home.home)
    await agent.initialize()
    await agent.agent.request('session/new', { cwd: home.home, mcpServers: [] })
    expect(agent.stderr).toContain(`configuration ignored: ${home.configFile}: is a named pipe (FIFO)`)
    expect(agent.stderr).toContain(`${home.credentialsFile}: is a named pipe (FIFO)`)
    expect(await agent.stop()).toBe(0)

    rmSync(home.configFile)
    symlinkSync('/dev/zero', home.configFile)
    const zero = start(home.home)
    await zero.initialize()
    await zero.agent.request('session/new', { cwd: home.home, mcpServers: [] })
    expect(zero.stderr).toContain(`${home.configFile}: is a device, not a regular file`)
  })

  it('a 400 MB project config.json is refused without being read, and the session starts', async () => {
    const { home, repo } = hostileRepo()
    const project = join(repo, '.dsh-acp', 'config.json')
    truncateSync(project, 400 * 1024 * 1024)
    home.trust(repo)
    const agent = start(repo)
    await agent.initialize({ session: { notices: {} } } as acp.ClientCapabilities)
    const created = (await agent.agent.request('session/new', { cwd: repo, mcpServers: [] })) as WithTrust
    await agent.agent.request('session/list', {})
    const notice = agent.updates.find(
      (n) => n.sessionId === created.sessionId && n.update.sessionUpdate === 'notice',
    )
    expect(notice?.update).toMatchObject({
      description: expect.stringContaining('is larger than the limit of 1048576 bytes'),
    })
  })
})
