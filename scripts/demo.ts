import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { renderLineage } from '../src/process/lineage.js'
import type { SessionSummary } from '../src/session/index.js'

/** What the demo showed, for a test to check the story's facts. */
export interface DemoFacts {
  readonly parent: string
  readonly child: string
  /** The seq of the first turn's `turn/end`, where the child was forked. */
  readonly boundary: number
  readonly seedLength: number
  readonly childAnswer: string
  readonly parentAnswer: string
  readonly lineage: readonly string[]
  readonly workDir: string
  readonly transcriptFile: string
  readonly storeDir: string
}

export interface DemoOptions {
  /** Where the account goes, line by line. Default: stdout. */
  readonly print?: (line: string) => void
  /** Where the store and transcript go. Default: a fresh temp directory, kept for the reader. */
  readonly workDir?: string
}

/** The repository root: the nearest ancestor holding this package's package.json. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'dsh-acp') return dir
    if (dirname(dir) === dir) throw new Error(`no dsh-acp package.json above ${from}`)
  }
}

const indent = (text: string) => text.replace(/^/gm, '      ')

/**
 * The fork story, told by driving the built server (`dist/cli.cjs`, built-in defaults: the offline
 * echo model) over stdio with the official ACP client: two turns, a fork at the end of the first,
 * the child prompted (it remembers the inherited first message and its own, not the parent's second), the parent prompted, then the session
 * list as a lineage tree and where the transcript and store files are.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoFacts> {
  const print = options.print ?? ((line: string) => console.log(line))
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'dsh-acp-demo-'))
  const storeDir = join(workDir, 'sessions')
  const transcriptFile = join(workDir, 'transcript.jsonl')
  const cli = join(packageRoot(import.meta.dirname), 'dist', 'cli.cjs')
  const server = spawn(
    process.execPath,
    [cli, '--store', storeDir, '--transcript', transcriptFile, '--log-level', 'error'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const exited = new Promise<number | null>((done) => server.once('exit', done))
  const answers = new Map<string, string>()
  const app = acp.client({ name: 'dsh-acp-demo' })
  app.onNotification('session/update', ({ params }) => {
    const { update } = params
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
      answers.set(params.sessionId, (answers.get(params.sessionId) ?? '') + update.content.text)
    }
  })
  const connection = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(server.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(server.stdout) as ReadableStream<Uint8Array>,
    ),
  )
  const agent = connection.agent
  const cwd = resolve(process.cwd())
  const ask = async (sessionId: string, text: string) => {
    answers.set(sessionId, '')
    const result = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })
    const seq = (result._meta as { dsh: { seq: number } }).dsh.seq
    const answer = answers.get(sessionId) ?? ''
    print(`    you: ${JSON.stringify(text)}`)
    print(`    agent (turn ended at seq ${seq}, ${result.stopReason}):`)
    print(indent(answer))
    return { seq, answer }
  }
  try {
    const init = await agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    })
    const forkAdvertised = init.agentCapabilities?.sessionCapabilities?.fork != null
    print(
      `dsh-acp demo: the fork story (server: ${init.agentInfo?.name} ${init.agentInfo?.version}, pid ${server.pid})`,
    )
    print(
      `  initialize: ACP v${init.protocolVersion}, session/fork advertised: ${forkAdvertised ? 'yes' : 'no'}`,
    )
    const { sessionId: parent } = await agent.request('session/new', { cwd, mcpServers: [] })
    print(`\n1. A new session ${parent} in ${cwd}, and two turns:`)
    const first = await ask(parent, 'My name is Ada.')
    await ask(parent, 'I am writing a compiler.')

    print(`\n2. Fork ${parent} at the end of the first turn: _meta.dsh.boundary = ${first.seq}`)
    const forked = await agent.request('session/fork', {
      sessionId: parent,
      cwd,
      mcpServers: [],
      _meta: { dsh: { boundary: first.seq } },
    })
    const { seedLength } = (forked._meta as { dsh: { seedLength: number } }).dsh
    const child = forked.sessionId
    print(`    -> child ${child}, inheriting the parent's first ${seedLength} events`)

    print(`\n3. Prompt the child: it remembers the first message and this one, not the parent's second.`)
    const childTurn = await ask(child, 'What do you know about me?')
    print(`\n4. Prompt the parent: its history is unchanged.`)
    const parentTurn = await ask(parent, 'What do you know about me?')

    const { sessions } = await agent.request('session/list', {})
    const summaries: SessionSummary[] = sessions.map((s) => {
      const dsh = (s._meta as { dsh: { createdAt: string; parentSession?: string; seedLength?: number } }).dsh
      return {
        sessionId: s.sessionId,
        cwd: s.cwd,
        updatedAt: s.updatedAt ?? dsh.createdAt,
        live: true,
        ...(typeof s.title === 'string' && { title: s.title }),
        ...dsh,
      }
    })
    const lineage = renderLineage(summaries)
    print('\n5. session/list, as a lineage tree:')
    for (const line of lineage) print(`    ${line}`)

    const storeFiles = existsSync(storeDir) ? readdirSync(storeDir).filter((f) => f.endsWith('.jsonl')) : []
    print('\nFiles:')
    print(`    transcript (every wire message, both directions): ${transcriptFile}`)
    print(`    store: ${storeDir} (${storeFiles.sort().join(', ')})`)
    print(`    see them again with: node dist/cli.cjs sessions --store ${storeDir}`)
    return {
      parent,
      child,
      boundary: first.seq,
      seedLength,
      childAnswer: childTurn.answer,
      parentAnswer: parentTurn.answer,
      lineage,
      workDir,
      transcriptFile,
      storeDir,
    }
  } finally {
    server.stdin.end()
    const code = await exited
    connection.close()
    if (code !== 0) print(`(the server exited with ${code})`)
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runDemo().catch((error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 1
  })
}
