import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../../session/index.js'
import type { ToolResult } from '../../types.js'
import type { Tool } from '../tool.js'
import { editTextFileTool } from './edit-text-file.js'
import { listDirectoryTool } from './list-directory.js'
import { readTextFileTool } from './read-text-file.js'
import { writeTextFileTool } from './write-text-file.js'

/**
 * Issue 28 #5: a directory on the path swapped for a symlink to outside while file tools run on
 * the local disk. Another process swaps `cwd/dir` (a real directory) for a symlink to `outside` and back as fast as it can while a bounded number of calls run; whatever races
 * it hits, no read returns the outside file's content and nothing outside changes. The number of
 * races hit is not asserted.
 */

const CALLS = 400
/** Calls that run at once. */
const BATCH = 5
const SECRET = 'OUTSIDE-SECRET'

let base: string
let cwd: string
let outside: string
let swapper: ChildProcess | undefined

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'dsh-swap-')))
  cwd = path.join(base, 'project')
  outside = path.join(base, 'outside')
  await mkdir(path.join(cwd, 'dir'), { recursive: true })
  await mkdir(outside)
  await writeFile(path.join(cwd, 'dir', 'file.txt'), 'inside\n')
  await writeFile(path.join(outside, 'file.txt'), `${SECRET}\n`)
  await writeFile(path.join(outside, 'only-outside.txt'), `${SECRET}\n`)
})
afterEach(async () => {
  swapper?.kill('SIGKILL')
  swapper = undefined
  await rm(base, { recursive: true, force: true })
})

/**
 * Starts a process that swaps `dir` for a symlink to outside and back until its stdin closes; resolves once
 * it has swapped at least once, so the calls run while it works.
 */
async function startSwapping(): Promise<ChildProcess> {
  const script = `
    const fs = require('node:fs')
    const [dir, away, outside] = process.argv.slice(1)
    let stop = false
    process.stdin.on('end', () => { stop = true }).resume()
    const ok = (f) => { try { f(); return true } catch { return false } }
    // Each state lasts a random few tens of microseconds, about as long as a tool's path checks.
    const hold = () => { const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 60_000)); while (process.hrtime.bigint() < until); }
    // Puts the real directory back (a directory a tool created meanwhile under its name goes).
    const repair = () => {
      if (!fs.existsSync(away)) return
      const there = fs.lstatSync(dir, { throwIfNoEntry: false })
      if (there?.isSymbolicLink()) ok(() => fs.unlinkSync(dir))
      else if (there) ok(() => fs.rmSync(dir, { recursive: true, force: true }))
      ok(() => fs.renameSync(away, dir))
    }
    let swaps = 0
    const loop = () => {
      for (let i = 0; i < 200 && !stop; i++) {
        if (ok(() => fs.renameSync(dir, away)) && ok(() => fs.symlinkSync(outside, dir))) hold()
        repair()
        hold()
        if (++swaps === 1) process.stdout.write('swapping\\n')
      }
      if (stop) return process.exit(0)
      setImmediate(loop)
    }
    loop()
  `
  const child = spawn(
    process.execPath,
    ['-e', script, path.join(cwd, 'dir'), path.join(cwd, 'dir.away'), outside],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  swapper = child
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`the swapper exited early (${code})`)))
  })
  return child
}

async function stopSwapping(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.stdin?.end()
  await exited
}

async function call(tool: Tool, input: JsonValue): Promise<ToolResult> {
  try {
    return await tool.run(input, {
      sessionId: 'ses_1',
      cwd,
      callId: 'call_1',
      turn: 1,
      client: {},
      signal: new AbortController().signal,
      progress: () => {},
    })
  } catch (error) {
    return { output: (error as Error).message, isError: true }
  }
}

/** The outside directory, every file with its content. */
async function outsideFiles(): Promise<Record<string, string>> {
  const names = await readdir(outside)
  const files: Record<string, string> = {}
  for (const name of names) files[name] = await readFile(path.join(outside, name), 'utf8')
  return files
}

describe('file tools while a directory is swapped for a symlink to outside', () => {
  it('no read returns the outside content', async () => {
    const child = await startSwapping()
    const outputs: string[] = []
    for (let i = 0; i < CALLS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, () => call(readTextFileTool, { path: 'dir/file.txt' }))
      for (const result of await Promise.all(batch)) outputs.push(String(result.output))
    }
    await stopSwapping(child)
    expect(outputs.filter((output) => output.includes(SECRET))).toEqual([])
    expect(outputs).toHaveLength(CALLS)
  })

  it('no listing shows the outside entries', async () => {
    const child = await startSwapping()
    const outputs: string[] = []
    for (let i = 0; i < CALLS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, () => call(listDirectoryTool, { path: 'dir' }))
      for (const result of await Promise.all(batch)) outputs.push(String(result.output))
    }
    await stopSwapping(child)
    expect(outputs.filter((output) => output.includes('only-outside.txt'))).toEqual([])
    expect(outputs).toHaveLength(CALLS)
  })

  it('no write or edit lands outside', async () => {
    const child = await startSwapping()
    for (let i = 0; i < CALLS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, j) => [
        call(writeTextFileTool, { path: `dir/new-${i + j}.txt`, content: 'written\n' }),
        call(writeTextFileTool, { path: 'dir/file.txt', content: `inside ${i + j}\n` }),
        call(editTextFileTool, { path: 'dir/file.txt', edits: [{ oldText: 'inside', newText: 'inside' }] }),
      ])
      await Promise.all(batch.flat())
    }
    await stopSwapping(child)
    expect(await outsideFiles()).toEqual({ 'file.txt': `${SECRET}\n`, 'only-outside.txt': `${SECRET}\n` })
  })
})
