import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { processStartTime } from '../session-lock.js'
import { StorePaths } from '../store-paths.js'
import { SessionStreamFiles, streamSessionOf, streamWriterOf } from './stream-files.js'

const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  for (const child of children.splice(0)) child.kill()
})

function streams(): { dir: string; files: SessionStreamFiles } {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-streams-'))
  dirs.push(dir)
  return { dir, files: new SessionStreamFiles(new StorePaths(dir), () => {}) }
}

/** A live process other than this one, to write a stream file in its name. */
function otherProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  children.push(child)
  if (child.pid === undefined) throw new Error('no child')
  return child.pid
}

const update = (text: string) => ({
  sessionId: 'ses_1',
  update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
})
const line = (value: unknown) => `${JSON.stringify(value)}\n`

describe("a turn's stream to other processes", () => {
  it('names its files so the watch can tell the session and the tidy-up the writer', () => {
    expect(streamSessionOf('ses_1.stream.123.ndjson')).toBe('ses_1')
    expect(streamWriterOf('ses_1.stream.123.ndjson')).toBe(123)
    expect(streamSessionOf('ses_1.board.123.json')).toBeUndefined()
    expect(streamSessionOf('ses_1.jsonl')).toBeUndefined()
  })

  it('a writer publishes under its own pid and takes its file down when the turn ends', () => {
    const { dir, files } = streams()
    const path = join(dir, `ses_1.stream.${process.pid}.ndjson`)
    files.publish('ses_1', { seq: 4, n: 0, update: update('a') })
    expect(existsSync(path)).toBe(true)
    // Its own stream is not read back.
    expect(files.read('ses_1', [String(process.pid)])).toEqual([])
    files.end('ses_1')
    expect(existsSync(path)).toBe(false)
  })

  it("a reader takes each whole line of another process's file once, and a new file from its start", () => {
    const { dir, files } = streams()
    const pid = otherProcess()
    const path = join(dir, `ses_1.stream.${pid}.ndjson`)
    const first = { seq: 4, n: 0, update: update('a') }
    const second = { seq: 4, n: 1, update: update('b') }
    writeFileSync(
      path,
      line({ pid, start: processStartTime(pid), token: 't1' }) + line(first) + line(second).slice(0, 10),
    )
    expect(files.read('ses_1', [String(pid)])).toEqual([first])
    appendFileSync(path, line(second).slice(10))
    expect(files.read('ses_1', [String(pid)])).toEqual([second])
    expect(files.read('ses_1', [String(pid)])).toEqual([])
    // The next turn's file is a new file (the old one was removed): read from its start.
    unlinkSync(path)
    const next = { seq: 9, n: 0, update: update('c') }
    writeFileSync(path, line({ pid, start: processStartTime(pid), token: 't2' }) + line(next))
    expect(files.read('ses_1', [String(pid)])).toEqual([next])
  })

  it('the file of a process that is gone is removed, not read', () => {
    const { dir, files } = streams()
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
    const pid = Number(gone.stdout.trim())
    const path = join(dir, `ses_1.stream.${pid}.ndjson`)
    writeFileSync(path, line({ pid, start: '1', token: 't' }) + line({ seq: 2, n: 0, update: update('x') }))
    expect(files.read('ses_1', [String(pid)])).toEqual([])
    expect(existsSync(path)).toBe(false)
  })
})
