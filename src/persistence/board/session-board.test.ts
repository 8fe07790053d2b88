import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { StorePaths } from '../store-paths.js'
import { boardSessionOf, SessionBoardFiles } from './session-board.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function board(): { dir: string; files: SessionBoardFiles; warnings: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-board-'))
  dirs.push(dir)
  const warnings: string[] = []
  return { dir, files: new SessionBoardFiles(new StorePaths(dir), (m) => warnings.push(m)), warnings }
}

const note = { attached: 1, clients: ['emacs'], questions: [], outcomes: [] }

describe('the store notice board', () => {
  it('names its files so the watch can tell the session', () => {
    expect(boardSessionOf('ses_1.board.123.json')).toBe('ses_1')
    expect(boardSessionOf('ses_1.answer.123-4.json')).toBe('ses_1')
    expect(boardSessionOf('ses_1.board.123.json.123.abcdefabcdef.tmp')).toBeUndefined()
    expect(boardSessionOf('ses_1.jsonl')).toBeUndefined()
  })

  it('the first answer offered wins; the asker takes it once', async () => {
    const { files } = board()
    expect(await files.offer('ses_1', '9-1', { result: { outcome: 'first' }, by: 'a' })).toBe(true)
    expect(await files.offer('ses_1', '9-1', { result: { outcome: 'second' }, by: 'b' })).toBe(false)
    expect(await files.answers('ses_1', ['9-1', '9-2'])).toEqual([
      { question: '9-1', answer: { result: { outcome: 'first' }, by: 'a' } },
    ])
    expect(await files.answers('ses_1', ['9-1'])).toEqual([])
  })

  it("a process reads the others' notes, not its own; a note taken down is gone", async () => {
    const { dir, files } = board()
    files.post('ses_1', note)
    expect(await files.read('ses_1')).toEqual([])
    // Another live process (the test runner's parent) posted one.
    const other = process.ppid
    writeFileSync(join(dir, `ses_1.board.${other}.json`), JSON.stringify({ pid: other, note }))
    expect(await files.read('ses_1')).toEqual([{ from: String(other), note }])
    expect(await files.read('ses_2')).toEqual([])
    files.post('ses_1', undefined)
    expect(readdirSync(dir)).toEqual([`ses_1.board.${other}.json`])
  })

  it('the note of a process that is gone is dropped and removed', async () => {
    const { dir, files } = board()
    // No process has pid 2^22 + 1 (above Linux's pid_max).
    const gone = 4_194_305
    writeFileSync(join(dir, `ses_1.board.${gone}.json`), JSON.stringify({ pid: gone, note }))
    expect(await files.read('ses_1')).toEqual([])
    expect(readdirSync(dir)).toEqual([])
  })
})
