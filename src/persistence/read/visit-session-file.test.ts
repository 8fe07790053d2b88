import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../session/log/events.js'
import { headerLine } from '../file-format.js'
import { nodeFileSystem } from '../fs/file-system.js'
import { visitSessionFile } from './visit-session-file.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-visit-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const HEADER = headerLine({ id: 'ses_v', createdAt: '2026-01-01T00:00:00.000Z', cwd: '/w' })
const note = (seq: number, text = `note ${seq}`) =>
  `${JSON.stringify({ seq, type: 'context/note', time: '2026-01-01T00:00:00.000Z', data: { text } })}\n`

async function visit(text: string, from: number, stopAt = Number.POSITIVE_INFINITY) {
  const path = join(dir, 'ses_v.jsonl')
  writeFileSync(path, text)
  const file = await nodeFileSystem.open(path, 'r')
  const seen: number[] = []
  try {
    const header = await visitSessionFile({ file, path, id: 'ses_v' }, from, async (event: SessionEvent) => {
      await new Promise((resolve) => setImmediate(resolve))
      seen.push(event.seq)
      return event.seq < stopAt
    })
    return { header, seen }
  } finally {
    await file.close()
  }
}

describe('visitSessionFile', () => {
  it('hands over the events from `from` on, in order, and resolves the header', async () => {
    const { header, seen } = await visit(HEADER + note(1) + note(2) + note(3), 2)
    expect(header.id).toBe('ses_v')
    expect(seen).toEqual([2, 3])
  })

  it('never decodes a line before `from` (an unparsable one there is not noticed), even across reads', async () => {
    const long = 'y'.repeat(200_000)
    const text = `${HEADER}{not json at all\n${note(2, long)}${note(3)}${note(4, long)}${note(5)}`
    expect((await visit(text, 3)).seen).toEqual([3, 4, 5])
    expect((await visit(text, 5)).seen).toEqual([5])
  })

  it('decodes a line longer than one read whole', async () => {
    const long = 'z'.repeat(300_000)
    const path = join(dir, 'ses_v.jsonl')
    writeFileSync(path, HEADER + note(1, long) + note(2))
    const file = await nodeFileSystem.open(path, 'r')
    const texts: string[] = []
    await visitSessionFile({ file, path, id: 'ses_v' }, 1, (event) => {
      texts.push((event.data as { text: string }).text)
      return true
    })
    await file.close()
    expect(texts).toEqual([long, 'note 2'])
  })

  it('stops where the visitor says so: a bad line after that is never read', async () => {
    expect((await visit(`${HEADER + note(1) + note(2)}{bad\n${note(4)}`, 1, 2)).seen).toEqual([1, 2])
  })

  it('leaves out a torn tail: bytes after the last newline, or an unparsable last line', async () => {
    expect((await visit(HEADER + note(1) + note(2).slice(0, 20), 1)).seen).toEqual([1])
    expect((await visit(`${HEADER + note(1)}{"seq":2,"ty\n`, 1)).seen).toEqual([1])
  })

  it('a bad line before the end, an event out of order or a bad header is CORRUPT_SESSION naming file and line', async () => {
    await expect(visit(`${HEADER + note(1)}{bad\n${note(3)}`, 1)).rejects.toMatchObject({
      code: 'CORRUPT_SESSION',
      data: { line: 3 },
    })
    await expect(visit(HEADER + note(1) + note(3), 1)).rejects.toMatchObject({
      code: 'CORRUPT_SESSION',
      data: { line: 3 },
    })
    await expect(
      visit(`{"version":1,"id":"ses_other","createdAt":"x","cwd":"/"}\n${note(1)}`, 1),
    ).rejects.toMatchObject({
      code: 'CORRUPT_SESSION',
      data: { line: 1 },
    })
    await expect(visit('', 1)).rejects.toMatchObject({ code: 'CORRUPT_SESSION' })
  })
})
