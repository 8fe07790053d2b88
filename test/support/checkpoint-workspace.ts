import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach } from 'vitest'
import type { CheckpointBlobs } from '../../src/agent/checkpoints/blob-port.js'
import { createScriptProvider } from '../../src/agent/providers/script.js'
import { parseModelScript, type ScriptTurn } from '../../src/agent/providers/script-format.js'
import type { ClientBridge } from '../../src/agent/types.js'
import { BlobDirectory } from '../../src/persistence/index.js'
import type { JsonValue, Session } from '../../src/session/index.js'
import { request, startAgent } from './turn-harness.js'

// Test support for file checkpoints: a fresh project directory and blob directory per test, an
// agent whose scripted model calls the file tools (edits allowed without asking), and helpers.

type Call = { readonly name: string; readonly input: JsonValue; readonly result?: JsonValue }

export const write = (file: string, content: string): Call => ({
  name: 'write_text_file',
  input: { path: file, content },
})

export const edit = (file: string, oldText: string, newText: string): Call => ({
  name: 'edit_text_file',
  input: { path: file, edits: [{ oldText, newText }] },
})

/** A turn whose first step makes these calls (one after the other) and whose second says done. */
export const turnOf = (...calls: Call[]): ScriptTurn => [
  calls.map((toolCall) => ({ toolCall })),
  [{ text: 'done' }],
]

/** Runs `count` turns on the session; resolves the seq of each `turn/end`. */
export async function turns(context: Context, session: Session, count: number, client: ClientBridge = {}) {
  const ends: number[] = []
  for (let i = 0; i < count; i++) {
    ends.push((await context.agent.runTurn(session, request(`turn ${i + 1}`, client))).seq)
  }
  return ends
}

export interface CheckpointWorkspace {
  /** A fresh real directory holding `cwd` and the blobs. */
  readonly base: string
  /** The sessions' working directory. */
  readonly cwd: string
  readonly blobDir: string
  /** An agent (stopping the previous one) playing `script`, keeping blobs in `blobs` (default: `blobDir`). */
  agentWith(script: ScriptTurn[], blobs?: CheckpointBlobs): Promise<Context>
  at(name: string): string
  text(name: string): Promise<string>
  /** The blob files (no temp files). */
  blobFiles(): string[]
}

/** Registers the per-test setup and teardown; the returned workspace is current in each test. */
export function useCheckpointWorkspace(): CheckpointWorkspace {
  let base = ''
  let ctx: Context | undefined
  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-ckpt-')))
    await mkdir(path.join(base, 'project'))
  })
  afterEach(async () => {
    await ctx?.stop()
    ctx = undefined
    await rm(base, { recursive: true, force: true })
  })
  const workspace: CheckpointWorkspace = {
    get base() {
      return base
    },
    get cwd() {
      return path.join(base, 'project')
    },
    get blobDir() {
      return path.join(base, 'blobs')
    },
    async agentWith(script, blobs) {
      await ctx?.stop()
      ctx = await startAgent({
        provider: createScriptProvider(parseModelScript(script)),
        modeOf: () => 'accept-edits',
        checkpointBlobs: blobs ?? new BlobDirectory(workspace.blobDir),
      })
      return ctx
    },
    at: (name) => path.join(workspace.cwd, name),
    text: (name) => readFile(workspace.at(name), 'utf8'),
    blobFiles: () =>
      existsSync(workspace.blobDir) ? readdirSync(workspace.blobDir).filter((n) => !n.startsWith('.')) : [],
  }
  return workspace
}
