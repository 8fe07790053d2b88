import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, expect } from 'vitest'
import { AgentProcess } from './agent-process.js'
import { type FakeOpenAi, type FakeScript, startFakeOpenAi } from './fake-openai.js'

/** The API key every openai end-to-end test runs with: recognizable, so a leak is found by search. */
export const API_KEY = 'sk-test-SECRET-123'

/** The model name passed with `--model-name` (and expected in every request body). */
export const MODEL_NAME = 'fake-model-1'

export interface OpenAiAgentOptions {
  /** What the fake chat-completions server answers, request by request. */
  readonly script: FakeScript
  /** Capabilities the client advertises in `initialize` (e.g. `{ fs: { writeTextFile: true } }`). */
  readonly clientCapabilities?: acp.ClientCapabilities
  /** Client-side handlers (permission, fs) registered before connecting. */
  readonly setupClient?: (app: acp.ClientApp) => void
  /**
   * More CLI arguments (after `--model openai --base-url ... --model-name ...`); a function gets
   * the scratch directory (e.g. for `--transcript`).
   */
  readonly args?: readonly string[] | ((scratch: string) => readonly string[])
  /** `DSH_API_KEY` for the agent; default {@link API_KEY}. */
  readonly apiKey?: string
  /** More environment for the agent (e.g. `XDG_CONFIG_HOME`). */
  readonly env?: Readonly<Record<string, string>>
}

/** A `log` line of a session file: one event. */
export interface LoggedEvent {
  readonly seq: number
  readonly type: string
  readonly data: Record<string, unknown>
}

/**
 * The built binary with `--model openai` pointed at a scripted fake server on 127.0.0.1, the key
 * in `DSH_API_KEY`, logs at debug level (so every log line is there to be searched for the key),
 * and a fresh temp directory as the sessions' `cwd`. `dispose` kills what is left and removes the
 * temp directories.
 */
export class OpenAiAgent {
  /** A fresh, real (symlink-free) directory: the `cwd` of every session `newSession` makes. */
  readonly cwd: string
  /** A scratch directory beside `cwd` (for files outside it, transcripts). */
  readonly scratch: string
  /** The store directory, kept across {@link restart}. */
  readonly storeDir: string
  private readonly base: string
  private current: AgentProcess

  private constructor(
    readonly fake: FakeOpenAi,
    private readonly options: OpenAiAgentOptions,
  ) {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-acp-openai-')))
    this.cwd = join(this.base, 'project')
    this.scratch = join(this.base, 'scratch')
    this.storeDir = join(this.base, 'store')
    for (const dir of [this.cwd, this.scratch, this.storeDir]) mkdirSync(dir)
    this.current = this.spawn()
  }

  /** The running agent process (a new one after {@link restart}). */
  get agent(): AgentProcess {
    return this.current
  }

  private spawn(): AgentProcess {
    const { args, apiKey, setupClient, env } = this.options
    return new AgentProcess({
      storeDir: this.storeDir,
      args: [
        '--model',
        'openai',
        '--base-url',
        this.fake.url,
        '--model-name',
        MODEL_NAME,
        '--log-level',
        'debug',
        ...(typeof args === 'function' ? args(this.scratch) : (args ?? [])),
      ],
      env: { DSH_API_KEY: apiKey ?? API_KEY, ...env },
      ...(setupClient && { setupClient }),
    })
  }

  /** Starts the fake server and the agent, and initializes the connection. */
  static async start(options: OpenAiAgentOptions): Promise<OpenAiAgent> {
    const fake = await startFakeOpenAi(options.script)
    const started = new OpenAiAgent(fake, options)
    await started.agent.initialize(options.clientCapabilities ?? {})
    return started
  }

  /**
   * Stops the agent (stdin EOF; throws unless it exits 0 with a clean wire) and starts a new one
   * on the same store, fake server and cwd, initialized like the first.
   */
  async restart(): Promise<void> {
    const code = await this.current.stop()
    if (code !== 0 || this.current.audit.problems.length > 0) {
      throw new Error(`agent exited ${code}: ${this.current.audit.problems.join('; ')}`)
    }
    this.current = this.spawn()
    await this.current.initialize(this.options.clientCapabilities ?? {})
  }

  /** `session/new` in {@link cwd}; resolves the session id. */
  async newSession(): Promise<string> {
    const { sessionId } = await this.agent.agent.request('session/new', { cwd: this.cwd, mcpServers: [] })
    return sessionId
  }

  /** `session/prompt` with one text block. */
  prompt(sessionId: string, text: string, signal?: AbortSignal): Promise<acp.PromptResponse> {
    return this.agent.agent.request(
      'session/prompt',
      { sessionId, prompt: [{ type: 'text', text }] },
      signal ? { cancellationSignal: signal } : undefined,
    )
  }

  /** The updates of one session received from index `from` on. */
  updatesOf(sessionId: string, from = 0): acp.SessionNotification[] {
    return this.agent.updates.slice(from).filter((u) => u.sessionId === sessionId)
  }

  /** `session/load`: resolves the updates it replayed (what the log recorded, as a client sees it). */
  async replay(sessionId: string): Promise<acp.SessionNotification[]> {
    const from = this.agent.updates.length
    await this.agent.agent.request('session/load', { sessionId, cwd: this.cwd, mcpServers: [] })
    return this.updatesOf(sessionId, from)
  }

  /** The events of a session's store file (durable once the prompt that wrote them answered). */
  loggedEvents(sessionId: string): LoggedEvent[] {
    const lines = readFileSync(join(this.storeDir, `${sessionId}.jsonl`), 'utf8').split('\n')
    return lines
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LoggedEvent)
  }

  /** Every file under the store directory, with its text. */
  storeFiles(): { name: string; text: string }[] {
    return readdirSync(this.storeDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name)
        return { name: path, text: readFileSync(path, 'utf8') }
      })
  }

  /** Kills the agent if it still runs, closes the fake server, removes every temp directory. */
  async dispose(): Promise<void> {
    const { child } = this.current
    if (child.exitCode === null && child.signalCode === null) await this.current.kill()
    await this.fake.close()
    rmSync(this.base, { recursive: true, force: true })
  }
}

/**
 * For one test file: a `start` that launches an {@link OpenAiAgent} and disposes it after the
 * test that started it.
 */
export function openAiAgents(): (options: OpenAiAgentOptions) => Promise<OpenAiAgent> {
  const runs: OpenAiAgent[] = []
  afterEach(async () => {
    for (const run of runs.splice(0)) await run.dispose()
  })
  return async (options) => {
    const run = await OpenAiAgent.start(options)
    runs.push(run)
    return run
  }
}

/** The agent exits 0 on stdin EOF, and every line it wrote was valid ACP. */
export async function expectCleanExit(run: OpenAiAgent): Promise<void> {
  expect(await run.agent.stop()).toBe(0)
  expect(run.agent.audit.problems).toEqual([])
}
